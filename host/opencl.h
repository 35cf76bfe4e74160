/* The OpenCL headers as clua uses them: the 1.2 API (clCreateCommandQueue
   and the other calls that 2.0 deprecated), and NVIDIA's device queries that
   cl_ext.h lacks (device.c, nvml.c). */
#ifndef CLUA_OPENCL_H
#define CLUA_OPENCL_H

#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <CL/cl_ext.h>

#define CL_DEVICE_PCI_BUS_ID_NV 0x4008
#define CL_DEVICE_PCI_SLOT_ID_NV 0x4009
#define CL_DEVICE_PCI_DOMAIN_ID_NV 0x400A

#endif
