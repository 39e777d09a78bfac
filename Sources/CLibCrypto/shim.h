#ifndef SEARCHLIGHT_CLIBCRYPTO_SHIM_H
#define SEARCHLIGHT_CLIBCRYPTO_SHIM_H

#include <openssl/sha.h>

#endif
