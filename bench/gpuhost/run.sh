#!/bin/bash
# bench/gpuhost/run.sh — the GPU-host measurement script behind docs/LP-137.md's H100/H200 rows.
#
# A GPU host lent for minutes has no Go and no network, so everything is built here and carried:
#
#   mkdir -p .dev && go build -tags opencl -ldflags "-s -w" -o .dev/fhegate ./cmd/fhegate
#   for p in gpu gpu/opencl gpu/native test/fhecheck; do
#     go test -c -tags opencl -ldflags "-s -w" -o .dev/$(echo $p | tr / _).test ./$p; done
#   cp -L /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 .dev/ && gzip -9 -f .dev/fhegate .dev/*.test
#
# then, on the GPU host, from the repository root (the NVIDIA OpenCL driver at its usual path):
#
#   BIN=.dev bench/gpuhost/run.sh info confull calocl calnat polocl polprod polnat comoff comon comnat
#
# Steps (each under its own time limit; a failed step does not stop the others):
#   info     nvidia-smi, cores, IFMA, `fhegate gpu info`
#   conf     the gpu, gpu/opencl, gpu/native, test/fhecheck test binaries (byte identity with Lattigo)
#   confull  the same with FHEGATE_GPU_FULL=1 (every N × B × prime cell) for opencl and native
#   calocl, calnat   `fhegate calibrate --quick` for OpenCL and for the native (IFMA) backend
#   polocl, polnat   `fhegate bench policy` kyc_aml and credit_limit through that table vs pure Go
#                    (same process; QUICK=1 for one repetition instead of best of 3)
#   polprod  polocl with BGV's products on the device too (FHEGATE_OPENCL_PRODUCTS=1); needs calocl first
#   polseq   polocl with --sequential (one transform batch per step, as before the gathered evaluation)
#   polks    polocl once per FHEGATE_OPENCL_KEYSWITCH value in $KS (default: none (NTTs only), muladd,modup,
#            all: the key switch's multiply-accumulate, basis extension, ModDown/rescale step on
#            OpenCL too), each printing the key-switch counters; needs calocl first
#   benchks  BenchmarkKeySwitchOps: each key-switch loop at BGVN14's top level, Lattigo on one core
#            vs the OpenCL kernels (transfers included), GOMAXPROCS=1
#   comoff, comon, comnat   `fhegate bench committee`, packed-kyc-vector, $PACKED (default 16,384) vector
#                    requests, n = 5, t = 3, GOMAXPROCS ladder $PROCS (default 2,4,8,16): gate off, OpenCL,
#                    native (PROF=1: comoff also writes a CPU profile of each packed batch)
#   comonq   comon with FHEGATE_GPU_QUEUE=1 (calls wait for the busy device instead of running on the CPU)
#   oldnat, oldon    comnat and comon with the binary in $OLD (another build, for a before/after pair in
#                    one run), on this run's tables
#   kycone   `fhegate bench committee --stages kyc-batch`: $KYC (default 4) KYC/AML requests one by one
# Results land in $RES (default /tmp/res) and, when $OUT is set, as $OUT/res.tgz.
set -u
BIN=$(cd "${BIN:-.dev}" && pwd); R=${RES:-/tmp/res}; mkdir -p "$R"
if [ -n "${OLD:-}" ]; then OLD=$(cd "$OLD" && pwd); fi
for d in "$BIN" ${OLD:+"$OLD"}; do
	(cd "$d" && for f in *.gz; do [ -f "$f" ] && gunzip -f "$f"; done; chmod +x fhegate ./*.test 2>/dev/null)
done
export LD_LIBRARY_PATH=$BIN${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if [ -z "${OCL_ICD_VENDORS:-}" ] && [ -e /usr/local/nvidia/lib64/libnvidia-opencl.so ]; then
	mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so >/tmp/icd/nvidia.icd
	export OCL_ICD_VENDORS=/tmp/icd
fi
FG=$BIN/fhegate
PROCS=${PROCS:-2,4,8,16}
Q=(); [ "${QUICK:-0}" = 1 ] && Q=(--quick)
t0=$(date +%s)
step() {
	local name=$1 lim=$2; shift 2
	echo "=== $name (limit ${lim}s, t+$(($(date +%s) - t0))s) $*"
	(cd "$BIN" && timeout "$lim" "$@") >"$R/$name.txt" 2>&1
	echo "rc=$? $name"
	grep -v 'INFO\|DEBUG' "$R/$name.txt" | tail -n "${TAILN:-25}" | cut -c1-400
	# after every step, so that a run cut off at its limit still returns what it measured
	if [ -n "${OUT:-}" ]; then tar czf "$OUT/res.tgz" -C "$(dirname "$R")" "$(basename "$R")"; fi
}
committee() { # name binary backend [flags]
	local name=$1 fg=$2 be=$3; shift 3
	step "$name" 200 "$fg" bench committee --stages packed-kyc-vector --packed "${PACKED:-16384}" --preset bgv-n14-t65537 \
		--kyc-batch 0 --gomaxprocs "$PROCS" --gpu-backend "$be" "$@" --json "$R/$name.json"
}
for s in "$@"; do
	case $s in
	info)
		nvidia-smi -L 2>&1; nproc; grep -m1 'model name' /proc/cpuinfo; grep -o -m1 avx512ifma /proc/cpuinfo
		step info 30 "$FG" gpu info ;;
	conf)
		for t in gpu_opencl gpu_native gpu test_fhecheck; do step "conf_$t" 90 "./$t.test" -test.count=1; done ;;
	confull)
		for t in gpu_opencl gpu_native; do FHEGATE_GPU_FULL=1 step "confull_$t" 150 "./$t.test" -test.count=1; done ;;
	calocl) step calocl 60 "$FG" calibrate --backend opencl --quick --out "$R/cal_ocl" ;;
	calnat) step calnat 60 "$FG" calibrate --backend native --quick --out "$R/cal_nat" ;;
	polocl) step polocl 150 "$FG" bench policy --policy kyc_aml,credit_limit --gpu-backend opencl \
		--gpu-table "$R/cal_ocl/crossover.json" "${Q[@]}" --json "$R/polocl.json" ;;
	polprod) FHEGATE_OPENCL_PRODUCTS=1 step polprod 150 "$FG" bench policy --policy kyc_aml,credit_limit --gpu-backend opencl \
		--gpu-table "$R/cal_ocl/crossover.json" "${Q[@]}" --json "$R/polprod.json" ;;
	polseq) step polseq 150 "$FG" bench policy --policy kyc_aml,credit_limit --gpu-backend opencl --sequential \
		--gpu-table "$R/cal_ocl/crossover.json" "${Q[@]}" --json "$R/polseq.json" ;;
	polnat) step polnat 150 "$FG" bench policy --policy kyc_aml,credit_limit --gpu-backend native \
		--gpu-table "$R/cal_nat/crossover.json" "${Q[@]}" --json "$R/polnat.json" ;;
	polks)
		for v in ${KS:-none muladd,modup all}; do
			FHEGATE_OPENCL_KEYSWITCH=$v step "polks_${v/,/_}" 150 "$FG" bench policy --policy kyc_aml,credit_limit \
				--gpu-backend opencl --gpu-table "$R/cal_ocl/crossover.json" "${Q[@]}" --json "$R/polks_${v/,/_}.json"
			grep -o '"\(policy\|verified\|muladd_routed\|modup_routed\|scalediff_routed\)": [^,]*' "$R/polks_${v/,/_}.json" | tr '\n' ' '
			echo
		done ;;
	benchks) GOMAXPROCS=1 step benchks 120 ./gpu_opencl.test -test.run '^$' -test.bench KeySwitchOps -test.benchtime 50x ;;
	comoff) if [ "${PROF:-0}" = 1 ]; then committee comoff "$FG" cpu --packed-cpuprofile "$R/comoff"; else committee comoff "$FG" cpu; fi ;;
	comon) committee comon "$FG" opencl --gpu-table "$R/cal_ocl/crossover.json" ;;
	comonq) FHEGATE_GPU_QUEUE=1 committee comonq "$FG" opencl --gpu-table "$R/cal_ocl/crossover.json" ;;
	comnat) committee comnat "$FG" native --gpu-table "$R/cal_nat/crossover.json" ;;
	oldnat) committee oldnat "$OLD/fhegate" native --gpu-table "$R/cal_nat/crossover.json" ;;
	oldon) committee oldon "$OLD/fhegate" opencl --gpu-table "$R/cal_ocl/crossover.json" ;;
	kycone) step kycone 200 "$FG" bench committee --stages kyc-batch --kyc-batch "${KYC:-4}" \
		--preset bgv-n14-t65537 --gpu-backend cpu --json "$R/kycone.json" ;;
	*) echo "unknown step $s" ;;
	esac
done
echo "=== done t+$(($(date +%s) - t0))s"
if [ -n "${OUT:-}" ]; then tar czf "$OUT/res.tgz" -C "$(dirname "$R")" "$(basename "$R")"; fi
