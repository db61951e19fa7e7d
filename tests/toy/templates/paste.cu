// The toy kernel with a derived value pasted into a comment (tests/cases/
// hostile_paste.case): note = $(note)
//% include("axpy2d.cu")
