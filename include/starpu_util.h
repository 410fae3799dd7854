/* starpu_util.h — helpers applications use from the StarPU API: compiler
 * attributes, assertions, atomics, environment lookups and timing.
 *
 * Everything here is either a macro or a function of libvela; nothing depends
 * on whether the run is real or simulated (starpu_timing_now() returns
 * simulated time in simulation, through the runtime's OS seam).
 */
#ifndef STARPU_UTIL_H
#define STARPU_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <assert.h>
#include <starpu_config.h>
#ifdef __GLIBC__
#include <execinfo.h>
#endif

#ifdef __cplusplus
extern "C"
{
#endif

#if defined __GNUC__ && defined __GNUC_MINOR__
#define STARPU_GNUC_PREREQ(maj, min) \
	((__GNUC__ << 16) + __GNUC_MINOR__ >= ((maj) << 16) + (min))
#else
#define STARPU_GNUC_PREREQ(maj, min) 0
#endif

#ifdef __GNUC__
#define STARPU_UNLIKELY(expr) (__builtin_expect(!!(expr), 0))
#define STARPU_LIKELY(expr) (__builtin_expect(!!(expr), 1))
#define STARPU_ATTRIBUTE_UNUSED __attribute__((unused))
#define STARPU_ATTRIBUTE_NORETURN __attribute__((noreturn))
#define STARPU_ATTRIBUTE_INTERNAL __attribute__((visibility("internal")))
#define STARPU_ATTRIBUTE_MALLOC __attribute__((malloc))
#define STARPU_ATTRIBUTE_WARN_UNUSED_RESULT __attribute__((warn_unused_result))
#define STARPU_ATTRIBUTE_PURE __attribute__((pure))
#define STARPU_ATTRIBUTE_ALIGNED(size) __attribute__((aligned(size)))
#define STARPU_ATTRIBUTE_FORMAT(type, string, first) __attribute__((format(type, string, first)))
#define STARPU_WARN_UNUSED_RESULT __attribute__((__warn_unused_result__))
#define STARPU_ATTRIBUTE_CALLOC_SIZE(num, size) __attribute__((alloc_size(num, size)))
#define STARPU_ATTRIBUTE_ALLOC_SIZE(size) __attribute__((alloc_size(size)))
#else
#define STARPU_UNLIKELY(expr) (expr)
#define STARPU_LIKELY(expr) (expr)
#define STARPU_ATTRIBUTE_UNUSED
#define STARPU_ATTRIBUTE_NORETURN
#define STARPU_ATTRIBUTE_INTERNAL
#define STARPU_ATTRIBUTE_MALLOC
#define STARPU_ATTRIBUTE_WARN_UNUSED_RESULT
#define STARPU_ATTRIBUTE_PURE
#define STARPU_ATTRIBUTE_ALIGNED(size)
#define STARPU_ATTRIBUTE_FORMAT(type, string, first)
#define STARPU_WARN_UNUSED_RESULT
#define STARPU_ATTRIBUTE_CALLOC_SIZE(num, size)
#define STARPU_ATTRIBUTE_ALLOC_SIZE(size)
#endif

/* Deprecated fields stay usable inside the library and for applications
 * that ask for the old API. */
#if defined(__GNUC__) && !defined(BUILDING_STARPU) && !defined(STARPU_USE_DEPRECATED_API) && !defined(STARPU_USE_DEPRECATED_ONE_ZERO_API)
#define STARPU_DEPRECATED __attribute__((__deprecated__))
#else
#define STARPU_DEPRECATED
#endif

#if defined(__cplusplus)
#define STARPU_INLINE inline
#else
#define STARPU_INLINE __inline__
#endif
#define __starpu_inline STARPU_INLINE

#if defined(__GNUC__) || defined(__cplusplus)
#define __starpu_func__ __func__
#else
#define __starpu_func__ __FUNCTION__
#endif

#define STARPU_MIN(a, b) ((a) < (b) ? (a) : (b))
#define STARPU_MAX(a, b) ((a) > (b) ? (a) : (b))

/* A value written over freed memory in debug builds. */
#define STARPU_POISON_PTR ((void *)0xdeadbeef)

#define STARPU_BACKTRACE_LENGTH 32
#ifdef __GLIBC__
#define STARPU_DUMP_BACKTRACE() do { \
	void *vela_bt_[STARPU_BACKTRACE_LENGTH]; \
	int vela_bt_n_ = backtrace(vela_bt_, STARPU_BACKTRACE_LENGTH); \
	backtrace_symbols_fd(vela_bt_, vela_bt_n_, 2); \
} while (0)
#else
#define STARPU_DUMP_BACKTRACE() do { } while (0)
#endif

#define STARPU_SIMGRID_ASSERT(x)

#ifdef STARPU_NO_ASSERT
#define STARPU_ASSERT(x) do { if (0) { (void) (x); } } while (0)
#define STARPU_ASSERT_ACCESSIBLE(ptr) do { if (0) { (void) (ptr); } } while (0)
#define STARPU_ASSERT_MSG(x, msg, ...) do { if (0) { (void) (x); (void) (msg); } } while (0)
#else
#define STARPU_ASSERT(x) do { \
	if (STARPU_UNLIKELY(!(x))) { \
		STARPU_DUMP_BACKTRACE(); \
		fprintf(stderr, "[vela] %s:%d: assertion failed: %s\n", __FILE__, __LINE__, #x); \
		abort(); \
	} \
} while (0)
#define STARPU_ASSERT_ACCESSIBLE(ptr) do { \
	volatile char vela_c_ STARPU_ATTRIBUTE_UNUSED = *(const char *) (ptr); \
} while (0)
#define STARPU_ASSERT_MSG(x, msg, ...) do { \
	if (STARPU_UNLIKELY(!(x))) { \
		STARPU_DUMP_BACKTRACE(); \
		fprintf(stderr, "\n[vela][%s] assertion failed: " msg "\n\n", __starpu_func__, ## __VA_ARGS__); \
		abort(); \
	} \
} while (0)
#endif

#define STARPU_ABORT() do { \
	STARPU_DUMP_BACKTRACE(); \
	fprintf(stderr, "[vela][abort][%s()@%s:%d]\n", __starpu_func__, __FILE__, __LINE__); \
	abort(); \
} while (0)

#define STARPU_ABORT_MSG(msg, ...) do { \
	STARPU_DUMP_BACKTRACE(); \
	fprintf(stderr, "[vela][abort][%s()@%s:%d] " msg "\n", __starpu_func__, __FILE__, __LINE__, ## __VA_ARGS__); \
	abort(); \
} while (0)

/* Fills buf with the message for errnum (a positive errno value). */
void starpu_strerror_r(int errnum, char *buf, size_t buflen);

#define STARPU_CHECK_RETURN_VALUE(err, message, ...) do { \
	if (STARPU_UNLIKELY((err) != 0)) { \
		char vela_msg_[256]; \
		starpu_strerror_r(-(err), vela_msg_, sizeof(vela_msg_)); \
		fprintf(stderr, "[vela] Unexpected value: <%d:%s> returned for " message "\n", (err), vela_msg_, ## __VA_ARGS__); \
		STARPU_ABORT(); \
	} \
} while (0)

#define STARPU_CHECK_RETURN_VALUE_IS(err, value, message, ...) do { \
	if (STARPU_UNLIKELY((err) != (value))) { \
		char vela_msg_[256]; \
		starpu_strerror_r(-(err), vela_msg_, sizeof(vela_msg_)); \
		fprintf(stderr, "[vela] Unexpected value: <%d!=%d:%s> returned for " message "\n", (err), (value), vela_msg_, ## __VA_ARGS__); \
		STARPU_ABORT(); \
	} \
} while (0)

/* Atomics, with the GCC builtins every supported compiler has. The *_ADD
 * forms return the new value, the *_OR forms the old one, as in StarPU. */
#define STARPU_ATOMIC_ADD(ptr, value) (__sync_fetch_and_add((ptr), (value)) + (value))
#define STARPU_ATOMIC_ADDL(ptr, value) (__sync_fetch_and_add((ptr), (value)) + (value))
#define STARPU_ATOMIC_ADD64(ptr, value) (__sync_fetch_and_add((ptr), (value)) + (value))
#define STARPU_ATOMIC_OR(ptr, value) (__sync_fetch_and_or((ptr), (value)))
#define STARPU_ATOMIC_ORL(ptr, value) (__sync_fetch_and_or((ptr), (value)))
#define STARPU_ATOMIC_OR64(ptr, value) (__sync_fetch_and_or((ptr), (value)))
#define STARPU_BOOL_COMPARE_AND_SWAP(ptr, old, value) (__sync_bool_compare_and_swap((ptr), (old), (value)))
#define STARPU_BOOL_COMPARE_AND_SWAP32(ptr, old, value) STARPU_BOOL_COMPARE_AND_SWAP(ptr, old, value)
#define STARPU_BOOL_COMPARE_AND_SWAP64(ptr, old, value) STARPU_BOOL_COMPARE_AND_SWAP(ptr, old, value)
#define STARPU_BOOL_COMPARE_AND_SWAP_PTR(ptr, old, value) STARPU_BOOL_COMPARE_AND_SWAP(ptr, old, value)
#define STARPU_VAL_COMPARE_AND_SWAP(ptr, old, value) (__sync_val_compare_and_swap((ptr), (old), (value)))
#define STARPU_VAL_COMPARE_AND_SWAP32(ptr, old, value) STARPU_VAL_COMPARE_AND_SWAP(ptr, old, value)
#define STARPU_VAL_COMPARE_AND_SWAP64(ptr, old, value) STARPU_VAL_COMPARE_AND_SWAP(ptr, old, value)
#define STARPU_VAL_COMPARE_AND_SWAP_PTR(ptr, old, value) STARPU_VAL_COMPARE_AND_SWAP(ptr, old, value)
#define STARPU_TEST_AND_SET(ptr, value) (__sync_lock_test_and_set((ptr), (value)))
#define STARPU_RELEASE(ptr) (__sync_lock_release((ptr)))
#define STARPU_SYNCHRONIZE() __sync_synchronize()
#define STARPU_RMB() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define STARPU_WMB() __atomic_thread_fence(__ATOMIC_RELEASE)

/* The size of a cache line, to keep data written by different threads
 * apart (alignment, padding). */
#if defined(__i386__) || defined(__x86_64__) || defined(__aarch64__)
#define STARPU_CACHELINE_SIZE 64
#elif defined(__powerpc__) || defined(__powerpc64__) || defined(__ia64__)
#define STARPU_CACHELINE_SIZE 128
#elif defined(__s390__) || defined(__s390x__)
#define STARPU_CACHELINE_SIZE 256
#else
#define STARPU_CACHELINE_SIZE 1024	/* unknown: large enough for any */
#endif
#define STARPU_ATOMIC_ADD_COUNTED(ptr, value) STARPU_ATOMIC_ADD(ptr, value)

/* Environment. starpu_getenv() is getenv() unless the runtime was told to
 * ignore the environment. */
char *starpu_getenv(const char *str);

/* The integer value of the environment variable, or -1 when unset. A value
 * that is not a non-negative integer is reported on stderr, naming the
 * variable, and treated as unset. */
int starpu_get_env_number(const char *str);

static STARPU_INLINE int starpu_get_env_number_default(const char *str, int defval)
{
	int ret = starpu_get_env_number(str);
	return ret == -1 ? defval : ret;
}

/* The float value of the variable, or defval when unset or malformed (a
 * malformed value is reported on stderr). */
float starpu_get_env_float_default(const char *str, float defval);

/* Position of the variable's value in strings[], or defvalue. */
int starpu_get_env_string_var_default(const char *str, const char *strings[], int defvalue);

/* A size with an optional k/m/g suffix, in bytes; defval when unset. */
int starpu_get_env_size_default(const char *str, int defval);

/* Runs func(arg) once on each worker whose kind is in where, and waits. */
void starpu_execute_on_each_worker(void (*func)(void *), void *arg, uint32_t where);
void starpu_execute_on_each_worker_ex(void (*func)(void *), void *arg, uint32_t where, const char *name);
void starpu_execute_on_specific_workers(void (*func)(void *), void *arg, unsigned num_workers, unsigned *workers, const char *name);

/* Microseconds since an arbitrary origin; simulated time in simulation. */
double starpu_timing_now(void);

/* Prints which worker is bound to which processing unit. */
void starpu_display_bindings(void);

/* The OS index of the processing unit with this hwloc logical index. */
int starpu_get_pu_os_index(unsigned logical_index);

#ifdef __cplusplus
}
#endif

#endif /* STARPU_UTIL_H */
