/*
 * yescrypt's memory, kept between hashes. libxcrypt's yescrypt maps its region (16 MiB at
 * libxcrypt's cost 5) with mmap at the start of every crypt_rn and unmaps it at the end (crypt_rn
 * offers no way to keep it), so every hash faults in and zeroes 4,096 fresh pages: on the VM this
 * was measured on, 75 ms a hash with 46% of it in the kernel, against 11 ms with the region kept
 * (docs/performance.md, "Three hashes made cheaper than slapd's").
 *
 * So the addon points libcrypt's own references to mmap and munmap (the GOT entries its
 * GLOB_DAT and JUMP_SLOT relocations fill) at the two functions below, once per process. They keep
 * the large private anonymous regions libcrypt unmaps (at most MAX_KEPT, each of at most
 * MAX_REGION bytes) and hand one back when libcrypt maps the same size again; every other mapping
 * goes to the kernel as before, and no other library is touched. A region is in use by one hash at
 * a time, so the regions kept are at most as many as hashes that ran at once (no more than
 * libuv's pool threads, and the memory budget admits fewer). yescrypt writes every block of its
 * region before it reads it, so what a region held does not matter (its own API, which crypt_rn
 * does not expose, reuses regions the same way).
 *
 * Linux with glibc on x86-64 or arm64; elsewhere, or if libcrypt cannot be found or patched, or
 * with LEVELDAP_XCRYPT_KEEP_REGIONS=0, nothing is patched and libcrypt maps as it always did.
 */
#ifndef LEVELDAP_REGION_POOL_H
#define LEVELDAP_REGION_POOL_H
#define _GNU_SOURCE /* dladdr1, RTLD_DL_LINKMAP */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MIN_REGION (1UL << 20)  /* smaller mappings are not yescrypt's region */
#define MAX_REGION (64UL << 20) /* libxcrypt's yescrypt cost 7; larger regions are unmapped as before */
#define MAX_KEPT 16

#if defined(__x86_64__)
#define GOT_DATA R_X86_64_GLOB_DAT
#define GOT_CALL R_X86_64_JUMP_SLOT
#elif defined(__aarch64__)
#define GOT_DATA R_AARCH64_GLOB_DAT
#define GOT_CALL R_AARCH64_JUMP_SLOT
#endif

typedef struct {
  void *base;
  size_t size;
  int in_use;
} Region;

/* The process's pool (libcrypt is loaded once, whatever the threads), and what it did. */
static struct {
  pthread_mutex_t lock;
  Region regions[MAX_KEPT];
  int count;
  int hooked;
  unsigned long reused, mapped;
} pool = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int is_region_request(void *address, size_t length, int prot, int flags, int fd) {
  return address == NULL && fd == -1 && prot == (PROT_READ | PROT_WRITE) && length >= MIN_REGION && length <= MAX_REGION
    && (flags & (MAP_ANONYMOUS | MAP_PRIVATE)) == (MAP_ANONYMOUS | MAP_PRIVATE)
    && (flags & (MAP_FIXED | MAP_HUGETLB | MAP_SHARED)) == 0;
}

/* A kept region of this size that no hash holds, taken; NULL when there is none. */
static void *take_kept(size_t length) {
  void *found = NULL;
  pthread_mutex_lock(&pool.lock);
  for (int i = 0; i < pool.count && found == NULL; i++) {
    if (!pool.regions[i].in_use && pool.regions[i].size == length) {
      pool.regions[i].in_use = 1;
      found = pool.regions[i].base;
      pool.reused++;
    }
  }
  pthread_mutex_unlock(&pool.lock);
  return found;
}

/* A new region, kept in the pool (in use) if there is room for it. */
static void *map_new(size_t length, int prot, int flags) {
  void *base = mmap(NULL, length, prot, flags, -1, 0);
  if (base == MAP_FAILED) return base;
  madvise(base, length, MADV_HUGEPAGE); /* fewer faults the first time, where THP is "madvise" */
  pthread_mutex_lock(&pool.lock);
  pool.mapped++;
  if (pool.count < MAX_KEPT) pool.regions[pool.count++] = (Region){ base, length, 1 };
  pthread_mutex_unlock(&pool.lock);
  return base;
}

static void *pooled_mmap(void *address, size_t length, int prot, int flags, int fd, off_t offset) {
  if (!is_region_request(address, length, prot, flags, fd)) return mmap(address, length, prot, flags, fd, offset);
  void *kept = take_kept(length);
  return kept != NULL ? kept : map_new(length, prot, flags);
}

/* A kept region goes back to the pool; anything else to the kernel. */
static int pooled_munmap(void *address, size_t length) {
  pthread_mutex_lock(&pool.lock);
  for (int i = 0; i < pool.count; i++) {
    if (pool.regions[i].base == address && pool.regions[i].size == length) {
      pool.regions[i].in_use = 0;
      pthread_mutex_unlock(&pool.lock);
      return 0;
    }
  }
  pthread_mutex_unlock(&pool.lock);
  return munmap(address, length);
}

#ifdef GOT_DATA
/* What the dynamic section of a loaded object says about its relocations and symbols. */
typedef struct {
  ElfW(Addr) base, relro_start, relro_end;
  const ElfW(Sym) *symbols;
  const char *names;
  const ElfW(Rela) *tables[2];
  size_t sizes[2];
} Dynamic;

/* glibc has already added the load address to these pointers in place; a value below it has not been. */
static ElfW(Addr) absolute(ElfW(Addr) base, ElfW(Addr) pointer) { return pointer < base ? pointer + base : pointer; }

static int read_dynamic(const struct link_map *map, Dynamic *dynamic) {
  memset(dynamic, 0, sizeof *dynamic);
  dynamic->base = map->l_addr;
  for (const ElfW(Dyn) *entry = map->l_ld; entry->d_tag != DT_NULL; entry++) {
    ElfW(Addr) pointer = absolute(map->l_addr, entry->d_un.d_ptr);
    if (entry->d_tag == DT_SYMTAB) dynamic->symbols = (const ElfW(Sym) *)pointer;
    else if (entry->d_tag == DT_STRTAB) dynamic->names = (const char *)pointer;
    else if (entry->d_tag == DT_RELA) dynamic->tables[0] = (const ElfW(Rela) *)pointer;
    else if (entry->d_tag == DT_RELASZ) dynamic->sizes[0] = entry->d_un.d_val;
    else if (entry->d_tag == DT_JMPREL) dynamic->tables[1] = (const ElfW(Rela) *)pointer;
    else if (entry->d_tag == DT_PLTRELSZ) dynamic->sizes[1] = entry->d_un.d_val;
  }
  return dynamic->symbols != NULL && dynamic->names != NULL;
}

/* dl_iterate_phdr's visit: the PT_GNU_RELRO range of the object loaded at dynamic->base. */
static int find_relro(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  Dynamic *dynamic = data;
  if (info->dlpi_addr != dynamic->base) return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    if (info->dlpi_phdr[i].p_type != PT_GNU_RELRO) continue;
    dynamic->relro_start = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
    dynamic->relro_end = dynamic->relro_start + info->dlpi_phdr[i].p_memsz;
  }
  return 1;
}

/* Writes one GOT entry; a page glibc made read-only after relocation (whole RELRO pages) is made so again. */
static int write_slot(const Dynamic *dynamic, void **slot, void *function) {
  uintptr_t page_size = (uintptr_t)sysconf(_SC_PAGESIZE), mask = ~(page_size - 1);
  uintptr_t page = (uintptr_t)slot & mask;
  int read_only = page >= (dynamic->relro_start & mask) && page + page_size <= (dynamic->relro_end & mask);
  if (mprotect((void *)page, page_size, PROT_READ | PROT_WRITE) != 0) return 0;
  __atomic_store_n(slot, function, __ATOMIC_SEQ_CST);
  if (read_only) mprotect((void *)page, page_size, PROT_READ);
  return 1;
}

/* Points the object's GOT entries for mmap and munmap at the pool's functions; how many it wrote. */
static int patch_references(const Dynamic *dynamic) {
  int written = 0;
  for (int t = 0; t < 2; t++) {
    for (size_t i = 0; dynamic->tables[t] != NULL && i < dynamic->sizes[t] / sizeof(ElfW(Rela)); i++) {
      const ElfW(Rela) *relocation = &dynamic->tables[t][i];
      unsigned long type = ELF64_R_TYPE(relocation->r_info);
      if (type != GOT_DATA && type != GOT_CALL) continue;
      const char *name = dynamic->names + dynamic->symbols[ELF64_R_SYM(relocation->r_info)].st_name;
      void *function = strcmp(name, "mmap") == 0 ? (void *)pooled_mmap : strcmp(name, "munmap") == 0 ? (void *)pooled_munmap : NULL;
      if (function != NULL) written += write_slot(dynamic, (void **)(dynamic->base + relocation->r_offset), function);
    }
  }
  return written;
}

/* Finds the object that holds `symbol` (libcrypt's crypt_rn) and patches it; 1 when both references were pointed at the pool. */
static int hook_object_of(void *symbol) {
  Dl_info info;
  struct link_map *map = NULL;
  Dynamic dynamic;
  if (dladdr1(symbol, &info, (void **)&map, RTLD_DL_LINKMAP) == 0 || map == NULL || !read_dynamic(map, &dynamic)) return 0;
  dl_iterate_phdr(find_relro, &dynamic);
  return patch_references(&dynamic) == 2;
}
#else
static int hook_object_of(void *symbol) {
  (void)symbol;
  return 0;
}
#endif

static void *hooked_symbol;
static pthread_once_t hook_once = PTHREAD_ONCE_INIT;

static void hook_once_now(void) {
  const char *setting = getenv("LEVELDAP_XCRYPT_KEEP_REGIONS");
  if (setting != NULL && strcmp(setting, "0") == 0) return;
  pool.hooked = hook_object_of(hooked_symbol);
}

/* Patches the object holding `symbol` once per process (pool.hooked says whether it did). */
static void hook_regions(void *symbol) {
  hooked_symbol = symbol;
  pthread_once(&hook_once, hook_once_now);
}

#endif
