#ifndef SEARCHLIGHT_CLIBDEFLATE_SHIM_H
#define SEARCHLIGHT_CLIBDEFLATE_SHIM_H

#include <libdeflate.h>

#endif
