/* cpu_info.c — see cpu_info.h. */
#include "nn/cpu_info.h"
#include "nn/int8.h"
#include "nn/ops.h"
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

bool nn_cpuinfo_field(const char *key, char *buf, size_t len)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return false;
    char line[512];
    bool found = false;
    size_t k = strlen(key);
    while (!found && fgets(line, sizeof line, f)) {
        if (strncmp(line, key, k) != 0) continue;
        const char *v = line + k;
        while (*v == ' ' || *v == '\t') v++;
        if (*v != ':') continue;               /* a longer key with this one as its prefix */
        for (v++; isspace((unsigned char)*v); v++) {}
        size_t n = strcspn(v, "\r\n");
        while (n > 0 && isspace((unsigned char)v[n - 1])) n--;
        snprintf(buf, len, "%.*s", (int)n, v);
        found = n > 0;
    }
    fclose(f);
    return found;
}

void nn_cpu_model(char *buf, size_t len)
{
    if (!len) return;
    char name[256], family[32], model[32];
    if (!nn_cpuinfo_field("model name", name, sizeof name)) snprintf(name, sizeof name, "unknown CPU");
    if (nn_cpuinfo_field("cpu family", family, sizeof family) && nn_cpuinfo_field("model", model, sizeof model))
        snprintf(buf, len, "%s (family %s, model %s)", name, family, model);
    else
        snprintf(buf, len, "%s", name);
}

void nn_cpu_describe(char *buf, size_t len)
{
    char model[400];
    nn_cpu_model(model, sizeof model);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(buf, len, "%s, %ld core%s; float kernels %s, int8 kernel %s", model, cores, cores == 1 ? "" : "s",
             nn_fast_isa(), nn_int8_kernel_name(nn_int8_active_kernel()));
}

void nn_cpu_print_line(const char *prefix)
{
    char cpu[512];
    nn_cpu_describe(cpu, sizeof cpu);
    printf("%smachine: %s\n", prefix, cpu);
}
