/* real.h — write an op once over a real type, compile it for float and for double.
 *
 * The CPU network is the reference the CUDA kernels are checked against, and its gradients are
 * checked against finite differences in double precision; so every op is written once over `real`
 * and instantiated twice: NN_R(nn_relu_forward) becomes nn_relu_forward_f (float) and
 * nn_relu_forward_d (double).  An op file does
 *
 *     #ifndef NN_REAL_PASS
 *     #define NN_SELF "ops_act.c"
 *     #include "nn/real.h"            -- includes NN_SELF once per real type
 *     #else
 *     ... the body, using `real`, `NN_R(name)` and NN_REAL_IS_FLOAT ...
 *     #endif
 *
 * Accumulations (sums over rows, softmax normalisers) use `acc_t` (double in both passes). */
#ifndef NN_REAL_PASS
#define NN_REAL_PASS 1

typedef double acc_t;

#define real float
#define NN_R(name) name##_f
#define NN_REAL_IS_FLOAT 1
#include NN_SELF
#undef real
#undef NN_R
#undef NN_REAL_IS_FLOAT

#define real double
#define NN_R(name) name##_d
#define NN_REAL_IS_FLOAT 0
#include NN_SELF
#undef real
#undef NN_R
#undef NN_REAL_IS_FLOAT

#undef NN_REAL_PASS
#undef NN_SELF
#endif
