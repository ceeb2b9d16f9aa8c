/*
 * Time as seconds in a double.  wall_now() is Unix time, for what is
 * recorded (submitted_at, ended_at); mono_now() never jumps, for durations
 * and deadlines; thread_cpu_now() is the calling thread's CPU time, for what
 * a piece of work costs.
 */
#ifndef PS_CLOCK_H
#define PS_CLOCK_H

double wall_now(void);
double mono_now(void);
double thread_cpu_now(void);

#endif
