#pragma once
// HS_HD marks per-strand math that is compiled twice: by nvcc for the cuda backend and by the
// host compiler for the cpu backend (see docs/architecture.md).
#if defined(__CUDACC__)
#define HS_HD __host__ __device__
#else
#define HS_HD
#endif

// HS_FORCE_INLINE: per-strand math the device compiler must inline. For the step functions, each
// called once, that take a strand view by reference: a call passes the view's address, which puts
// the whole view (hundreds of bytes of pointers) in the thread's stack frame. Nothing on the host.
#if defined(__CUDACC__)
#define HS_FORCE_INLINE __forceinline__
#else
#define HS_FORCE_INLINE
#endif
