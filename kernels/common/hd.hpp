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

// HS_FLATTEN: a host function whose calls are all inlined into it (the lanes' row loops: the
// physics in their lambdas is then compiled as the loop's body, as a plain loop would be; without
// it GCC left DER's bending-Hessian stencil out of line and the implicit step 15 % slower).
#if !defined(__CUDA_ARCH__) && defined(__GNUC__)
#define HS_FLATTEN __attribute__((flatten))
#else
#define HS_FLATTEN
#endif
