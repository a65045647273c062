/* cpu_info.h — the machine a run or a bench ran on, in one line for banners and reports: the
 * CPU's model name (/proc/cpuinfo), the cores online, and the SIMD kernels src/nn
 * picks on it (float: ops_fast.c; int8: int8.h).  Results on a 2-core CPU depend on these
 * (src/train/README.md: a run's steps follow its CPU's SGD speed), so every report names them. */
#ifndef NN_CPU_INFO_H
#define NN_CPU_INFO_H
#include <stdbool.h>
#include <stddef.h>

/* The value of the first /proc/cpuinfo line whose key is `key` ("model name", "cpu MHz"), blanks
 * around it cut, into buf (cut to len); false where there is no such line or no /proc/cpuinfo. */
bool nn_cpuinfo_field(const char *key, char *buf, size_t len);

/* The model name, or "unknown CPU" where /proc/cpuinfo has none, with the family and model numbers
 * where it has them (x86): "AMD EPYC (family 25, model 1)"; into buf (cut to len). */
void nn_cpu_model(char *buf, size_t len);

/* "AMD EPYC (family 25, model 1), 2 cores; float kernels avx2, int8 kernel avx2" into buf (cut to len). */
void nn_cpu_describe(char *buf, size_t len);

/* "PREFIXmachine: " and nn_cpu_describe's line on stdout: every bench and run banner prints it. */
void nn_cpu_print_line(const char *prefix);

#endif
