#pragma once
// HS_HD marks per-strand math that is compiled twice: by nvcc for the cuda backend and by the
// host compiler for the cpu backend (see docs/architecture.md).
#if defined(__CUDACC__)
#define HS_HD __host__ __device__
#else
#define HS_HD
#endif
