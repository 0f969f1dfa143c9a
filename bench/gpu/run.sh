#!/usr/bin/env bash
# GPU benchmark of the onnx verifier, for a machine with an NVIDIA GPU (the device
# tool's status says whether one is lent; CI never needs this). It builds a
# DeBERTa-base-sized random model, times it in PyTorch on CUDA, then times the same
# ONNX file through the Go backend's ONNX Runtime path on CUDA and on CPU.
#
# CUDA needs ONNX Runtime's CUDA provider libraries of the same version as the core
# library (see ../shared/notes/onnx.md): set ORT_LIB to a libonnxruntime.so whose
# directory also holds libonnxruntime_providers_cuda.so and _shared.so.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-.cache/gpu-model}
python3 bench/gpu/make_base_model.py "$OUT" --batch 32 --seq 128
for dev in cuda cpu; do
  echo "== onnx verifier, device $dev"
  BENCH_MODEL="$OUT" BENCH_DEVICE=$dev go test ./adjudicate/onnx -run '^$' -bench BenchmarkModel -benchtime 3s || true
done
