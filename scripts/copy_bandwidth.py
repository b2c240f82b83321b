#!/usr/bin/env python3
"""The device's copy bandwidth, the memory ceiling of the performance model (docs/gpu.md).

A device-to-device copy of a 2 GiB buffer (filled with random bytes, several times the L2),
timed with CUDA events after warm-up, 20 repetitions, median; bandwidth counts the bytes read
plus the bytes written (METHOD.md). Uses PyTorch, else CuPy (both on the device image); prints
one JSON object, or one with "error" when neither or no device is there.
"""
import json
import statistics
import sys

SIZE = 2 * 2**30
REPS = 20


def with_torch():
    import torch
    if not torch.cuda.is_available():
        raise RuntimeError("torch sees no CUDA device")
    src = torch.randint(0, 255, (SIZE,), dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    times = []
    for i in range(REPS + 3):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        dst.copy_(src)
        stop.record()
        torch.cuda.synchronize()
        if i >= 3:
            times.append(start.elapsed_time(stop) / 1e3)
    if not torch.equal(dst[:4096], src[:4096]):
        raise RuntimeError("the copy did not arrive")
    return torch.cuda.get_device_name(0), times


def with_cupy():
    import cupy
    src = cupy.random.randint(0, 255, SIZE, dtype=cupy.uint8)
    dst = cupy.empty_like(src)
    times = []
    for i in range(REPS + 3):
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        dst[...] = src
        stop.record()
        stop.synchronize()
        if i >= 3:
            times.append(cupy.cuda.get_elapsed_time(start, stop) / 1e3)
    name = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    return name, times


def main():
    errors = []
    for method in (with_torch, with_cupy):
        try:
            name, times = method()
        except Exception as e:  # noqa: BLE001 - report why and try the next library
            errors.append(f"{method.__name__}: {e}")
            continue
        t = statistics.median(times)
        print(json.dumps({"device": name, "bytes": SIZE, "repetitions": REPS,
                          "median_s": t, "min_s": min(times),
                          "gb_per_s": 2 * SIZE / t / 1e9, "method": method.__name__}))
        return 0
    print(json.dumps({"error": "; ".join(errors)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
