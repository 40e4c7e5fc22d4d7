/* A user header: macros and a typedef, found through -I. */
#ifndef PC_KERNEL_H
#define PC_KERNEL_H
#define N 64
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
typedef double real_t;
#endif
