# sourced at the start of every GPU call: the NVIDIA ICD, bwrap and (when carried) oclgrind on the PATH
echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
G=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p /usr/local/clua-extra/bw /usr/local/bin
tar xzf "$G/bwrap.tar.gz" -C /usr/local/clua-extra/bw
printf '#!/bin/sh\nLD_LIBRARY_PATH=/usr/local/clua-extra/bw/lib/x86_64-linux-gnu exec /usr/local/clua-extra/bw/usr/bin/bwrap "$@"\n' > /usr/local/bin/bwrap
chmod 755 /usr/local/bin/bwrap
if [ -f "$G/og.tar.xz" ]; then
  mkdir -p /usr/local/clua-extra/og
  tar xJf "$G/og.tar.xz" -C /usr/local/clua-extra/og
  printf '#!/bin/sh\nLD_LIBRARY_PATH=/usr/local/clua-extra/og/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} exec /usr/local/clua-extra/og/usr/bin/oclgrind "$@"\n' > /usr/local/bin/oclgrind
  chmod 755 /usr/local/bin/oclgrind
fi
export PATH=/usr/local/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,utilization.gpu --format=csv,noheader
