/* The native backend's scalar.c, compiled here: fhe/engine/kernels/native/scalar.c. */
#include "native/scalar.c"
