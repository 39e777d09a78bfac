#ifndef SEARCHLIGHT_CSTEMMER_SHIM_H
#define SEARCHLIGHT_CSTEMMER_SHIM_H

// Snowball's libstemmer (Debian libstemmer-dev): one stemmer object per thread.
#include <libstemmer.h>

#endif
