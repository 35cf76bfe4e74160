#!/usr/bin/python3
"""bench/launch_pyopencl.py: PyOpenCL's enqueue of the empty kernel, for
clua's figures to be held against (bench/launch_layers.sh runs it beside
the C program and clua's twin; docs/notes/launch.md).

    /usr/bin/python3 bench/launch_pyopencl.py [N] [BATCHES]

Debian's python3-pyopencl (not installed by make setup). The first device of
the first platform; N (10000) enqueue_nd_range_kernel(q, empty, (1,), None)
per batch, timed by the host clock and by the enqueuing thread's CPU time
(time.thread_time_ns, as cl.cputime), then q.finish(); one warm-up batch,
then the median of BATCHES (5), in us per enqueue. PyOpenCL returns an event
from every enqueue, as q:launch(k, 1) does.
"""
import os
import statistics
import sys
import time

try:
    import pyopencl as cl
except ImportError:
    sys.exit("launch_pyopencl: needs PyOpenCL: apt-get install python3-pyopencl, then run it with /usr/bin/python3")

n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
batches = int(sys.argv[2]) if len(sys.argv) > 2 else 5
here = os.path.dirname(os.path.abspath(__file__))
dev = cl.get_platforms()[0].get_devices()[0]
ctx = cl.Context([dev])
q = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
with open(os.path.join(here, "..", "kernels", "copy.cl")) as f:
    k = cl.Program(ctx, f.read()).build().empty
wall, cpu = [], []
for b in range(batches + 1):
    c0, t0 = time.thread_time_ns(), time.monotonic_ns()
    for _ in range(n):
        cl.enqueue_nd_range_kernel(q, k, (1,), None)
    t1, c1 = time.monotonic_ns(), time.thread_time_ns()
    q.finish()
    if b:
        wall.append((t1 - t0) / n / 1e3)
        cpu.append((c1 - c0) / n / 1e3)
print("device: %s (PyOpenCL %s)" % (dev.name, cl.VERSION_TEXT))
print("pyopencl_launch_us %.3f" % statistics.median(wall))
print("cpu_us %.3f" % statistics.median(cpu))
