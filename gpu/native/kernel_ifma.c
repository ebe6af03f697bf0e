/* The native backend's ifma.c, compiled here: fhe/engine/kernels/native/ifma.c. */
#include "native/ifma.c"
