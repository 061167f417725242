"""Bug: --precision defaults to "fp16"; get_cast_dtype maps it to torch.float16 and the vision encoder is cast, but the pixel batch from the image processor stays float32.

family: precision
category: configuration
expected: RuntimeError
message: Input type (float) and bias type (c10::Half) should be the same
source: https://github.com/mlfoundations/open_flamingo/issues/260
"""
import argparse

import torch
import torch.nn as nn


def get_cast_dtype(precision):
    cast_dtype = None
    if precision == "bf16":
        cast_dtype = torch.bfloat16
    elif precision == "fp16":
        cast_dtype = torch.float16
    return cast_dtype


def create_vision_encoder(width=16):
    return nn.Sequential(nn.Conv2d(3, width, 4, stride=4), nn.GELU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())


def image_processor(n, size=32):
    return torch.rand(n, 3, size, size)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--precision", choices=["amp_bf16", "bf16", "fp16", "fp32"], default="fp16")
    parser.add_argument("--batch-size", type=int, default=2)
    args = parser.parse_args()
    cast_dtype = get_cast_dtype(args.precision)
    encoder = create_vision_encoder()
    if cast_dtype is not None:
        encoder = encoder.to(dtype=cast_dtype)  # cause: float16 encoder with the default --precision fp16
    pixels = image_processor(args.batch_size)
    feats = encoder(pixels)  # bug: float32 pixels into the float16 encoder
    print(feats.shape)


if __name__ == "__main__":
    main()
