// OpenCL C helpers shared by the package's cgo preambles (opencl.go,
// keyswitch.go): each preamble is a C translation unit of its own, so what
// both need lives here, static, once.
#ifndef FG_CLPROG_H
#define FG_CLPROG_H

#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#ifdef __APPLE__
#include <OpenCL/opencl.h>
#else
#include <CL/cl.h>
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// fg_err writes "what: OpenCL error rc" into eb and returns rc (-1 when rc
// is CL_SUCCESS: a failure with no OpenCL code, such as a NULL result).
static int fg_err(char *eb, size_t n, const char *what, cl_int rc) {
	snprintf(eb, n, "%s: OpenCL error %d", what, (int)rc);
	return rc == CL_SUCCESS ? -1 : (int)rc;
}

// fg_cl_program builds the OpenCL C source src for dev and creates the n
// kernels named names into ks. A build failure's error carries the
// compiler's log; what names the program in errors.
static int fg_cl_program(cl_context ctx, cl_device_id dev, const char *src, const char *what, cl_program *prog,
                         const char *const *names, cl_kernel *ks, int n, char *eb, size_t ebn) {
	cl_int rc;
	*prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &rc);
	if (rc != CL_SUCCESS) {
		char w[96];
		snprintf(w, sizeof w, "clCreateProgramWithSource (%s)", what);
		return fg_err(eb, ebn, w, rc);
	}
	rc = clBuildProgram(*prog, 1, &dev, "", NULL, NULL);
	if (rc != CL_SUCCESS) {
		size_t used = 0;
		int k = snprintf(eb, ebn, "clBuildProgram (%s): OpenCL error %d: ", what, (int)rc);
		if (k > 0 && (size_t)k < ebn) {
			clGetProgramBuildInfo(*prog, dev, CL_PROGRAM_BUILD_LOG, ebn - (size_t)k - 1, eb + k, &used);
		}
		return (int)rc;
	}
	for (int i = 0; i < n; i++) {
		ks[i] = clCreateKernel(*prog, names[i], &rc);
		if (rc != CL_SUCCESS) {
			char w[96];
			snprintf(w, sizeof w, "clCreateKernel %s", names[i]);
			return fg_err(eb, ebn, w, rc);
		}
	}
	return 0;
}

#endif
