#ifndef SEARCHLIGHT_CLIBXML2_SHIM_H
#define SEARCHLIGHT_CLIBXML2_SHIM_H

// libxml2's encoding.h pulls in ICU when LIBXML_ICU_ENABLED is set, and ICU's
// UErrorCode clashes with the copy bundled in Foundation. Searchlight never uses
// libxml2's ICU converters (iconv covers every charset it needs), so the macro is
// dropped before any other libxml2 header is read. Do not touch the fields of
// xmlCharEncodingHandler: their layout depends on this macro.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/HTMLparser.h>
#include <libxml/encoding.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlreader.h>

#endif
