#ifndef SEARCHLIGHT_CSQLITE_SHIM_H
#define SEARCHLIGHT_CSQLITE_SHIM_H

#include <sqlite3.h>
#include <sys/mman.h>

// SQLITE_TRANSIENT is a cast macro Swift does not import: "make your own copy now".
static inline sqlite3_destructor_type sl_sqlite_transient(void) { return SQLITE_TRANSIENT; }

// mmap(2) as SQLite's unix VFS calls it, the mapping then advised random: SQLite reads a
// mapped database a B-tree page at a time, all over the file, and without the advice each
// fault on a cold page makes the kernel read `read_ahead_kb` around it (8 MB on some disks:
// hundreds of pages for the one wanted). mremap(2) keeps the advice.
static inline void *sl_sqlite_mmap_random(void *address, size_t length, int protection, int flags, int descriptor, off_t offset) {
    void *mapped = mmap(address, length, protection, flags, descriptor, offset);
    if (mapped != MAP_FAILED) (void)madvise(mapped, length, MADV_RANDOM);
    return mapped;
}

// Makes the unix VFS map files through sl_sqlite_mmap_random, by its table of replaceable
// system calls (sqlite3_vfs.xSetSystemCall): to be called once, before any connection opens.
static inline int sl_sqlite_map_files_random(void) {
    sqlite3_vfs *vfs = sqlite3_vfs_find(0);
    if (vfs == 0 || vfs->iVersion < 3 || vfs->xSetSystemCall == 0) return SQLITE_NOTFOUND;
    return vfs->xSetSystemCall(vfs, "mmap", (sqlite3_syscall_ptr)sl_sqlite_mmap_random);
}

#endif
