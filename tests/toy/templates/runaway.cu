// A template whose loop writes 48 MB of source for one variant
// (tests/cases/hostile_big_source.case): refused, not copied.
//% for i = 1, 3000000 do
// filler $(i)
//% end
//% include("axpy2d.cu")
