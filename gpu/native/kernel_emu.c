/* The native backend's emu.c, compiled here: fhe/engine/kernels/native/emu.c. */
#include "native/emu.c"
