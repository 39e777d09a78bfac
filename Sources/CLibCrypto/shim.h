#ifndef SEARCHLIGHT_CLIBCRYPTO_SHIM_H
#define SEARCHLIGHT_CLIBCRYPTO_SHIM_H

#include <openssl/sha.h>
#include <openssl/hmac.h>
#include <openssl/evp.h>

#endif
