"""Quantised members of the model suite: an exported model quantised in
ONNX's QDQ form with onnxruntime's quantize_static, as a model team
quantises a checkpoint for int8 inference.

Each is int8 throughout: activations symmetric (one scale a tensor, zero
point 0), weights symmetric with a scale per output channel, calibrated by
MinMax on CALIBRATION inputs drawn from a fixed seed. The result is cached
beside the export, as NAME.onnx with NAME.json, and remade when its
source, this recipe or onnxruntime changes.
"""
import hashlib
import json
import os
import tempfile

import numpy as np
import onnx
import onnxruntime
from onnxruntime.quantization import (CalibrationDataReader, QuantFormat,
                                      QuantType, quantize_static)
from onnxruntime.quantization.shape_inference import quant_pre_process

import suite_common

# Quantised model -> the exported model it is made from.
QUANTIZED = {"resnet50_qdq": "resnet50"}
CALIBRATION = 8
SEED = 1234


class _RandomImages(CalibrationDataReader):
    def __init__(self, info):
        rng = np.random.default_rng(SEED)
        self.batches = iter([
            {name: rng.standard_normal(spec["shape"]).astype(np.float32)
             for name, spec in info["inputs"].items()}
            for _ in range(CALIBRATION)])

    def get_next(self):
        return next(self.batches, None)


def _digest(source_stamp):
    digest = hashlib.sha256()
    digest.update(open(os.path.abspath(__file__), "rb").read())
    digest.update(source_stamp.encode())
    digest.update(onnxruntime.__version__.encode())
    return digest.hexdigest()


def quantize(name, models_dir):
    """Makes (or finds up to date) the quantised model `name` in
    `models_dir` from its exported source; returns True if it was made."""
    source = QUANTIZED[name]
    source_path = os.path.join(models_dir, source + ".onnx")
    source_stamp = open(os.path.join(models_dir, source + ".stamp")).read()
    onnx_path = os.path.join(models_dir, name + ".onnx")
    info_path = os.path.join(models_dir, name + ".json")
    stamp_path = os.path.join(models_dir, name + ".stamp")
    digest = _digest(source_stamp)
    if (os.path.exists(onnx_path) and os.path.exists(info_path)
            and os.path.exists(stamp_path) and open(stamp_path).read() == digest):
        return False
    info = json.load(open(os.path.join(models_dir, source + ".json")))
    with tempfile.TemporaryDirectory(prefix="hetc-quantize-") as work:
        prepared = os.path.join(work, "prepared.onnx")
        quant_pre_process(source_path, prepared, skip_symbolic_shape=True)
        tmp = onnx_path + ".tmp"
        quantize_static(prepared, tmp, _RandomImages(info),
                        quant_format=QuantFormat.QDQ,
                        activation_type=QuantType.QInt8, weight_type=QuantType.QInt8,
                        per_channel=True, extra_options={"ActivationSymmetric": True})
        onnx.checker.check_model(tmp)
        os.replace(tmp, onnx_path)
    info["name"] = name
    info["quantized_from"] = source
    suite_common.write_cached(info_path, info, stamp_path, digest)
    return True
