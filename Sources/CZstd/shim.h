#ifndef SEARCHLIGHT_CZSTD_SHIM_H
#define SEARCHLIGHT_CZSTD_SHIM_H

#include <zstd.h>
#include <zdict.h>

#endif
