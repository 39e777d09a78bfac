#ifndef SEARCHLIGHT_CIDN2_SHIM_H
#define SEARCHLIGHT_CIDN2_SHIM_H

#include <idn2.h>

#endif
