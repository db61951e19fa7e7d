/* Progress on stderr: one line redrawn in place on a terminal (as ninja
 * does), one plain line per event otherwise. */
#ifndef BARTUNE_PROGRESS_H
#define BARTUNE_PROGRESS_H

void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A line that stays (a failure, a summary). */
void progress_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Ends a redrawn line. */
void progress_end(void);

#endif
