#ifndef SEARCHLIGHT_CPSL_SHIM_H
#define SEARCHLIGHT_CPSL_SHIM_H

#include <libpsl.h>

#endif
