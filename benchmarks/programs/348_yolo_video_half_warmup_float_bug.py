"""Bug: the half-precision video demo converts the Darknet model with .half() behind its --half flag, then runs the warm-up pass on get_test_input(), which still returns a float32 image.

family: precision
category: mixed-precision
expected: RuntimeError
message: expected scalar type Float but found Half
source: https://github.com/ayooshkathuria/pytorch-yolo-v3/issues/29
"""
import argparse

import numpy as np
import torch
import torch.nn as nn


def conv_block(in_ch, out_ch, stride):
    return nn.Sequential(nn.Conv2d(in_ch, out_ch, 3, stride, 1, bias=False), nn.BatchNorm2d(out_ch), nn.LeakyReLU(0.1))


class Darknet(nn.Module):
    def __init__(self, num_classes=4, num_anchors=3):
        super().__init__()
        self.bbox_attrs = 5 + num_classes
        self.num_anchors = num_anchors
        self.module_list = nn.ModuleList([conv_block(3, 8, 1), conv_block(8, 16, 2), conv_block(16, 32, 2),
                                          nn.Conv2d(32, num_anchors * self.bbox_attrs, 1)])
        self.net_info = {"height": "64"}

    def forward(self, x):
        for module in self.module_list:
            x = module(x)  # bug: float32 warm-up image into half-precision convolutions
        batch, _, grid, _ = x.shape
        x = x.view(batch, self.num_anchors * self.bbox_attrs, grid * grid).transpose(1, 2).contiguous()
        x = x.view(batch, grid * grid * self.num_anchors, self.bbox_attrs)
        return torch.cat([x[..., :4], torch.sigmoid(x[..., 4:])], dim=-1)


def get_test_input(input_dim):
    rng = np.random.default_rng(0)
    img = rng.integers(0, 256, (input_dim, input_dim, 3), dtype=np.uint8)
    img_ = img[:, :, ::-1].transpose((2, 0, 1))[np.newaxis, :, :, :] / 255.0
    return torch.from_numpy(img_).float()


def prep_image(frame, inp_dim):
    img_ = frame[:, :, ::-1].transpose((2, 0, 1)).copy()
    return torch.from_numpy(img_).float().div(255.0).unsqueeze(0)


def write_results(prediction, confidence):
    conf_mask = (prediction[..., 4] > confidence).unsqueeze(-1)
    return (prediction * conf_mask)[conf_mask.squeeze(-1)]


def arg_parse():
    parser = argparse.ArgumentParser(description="YOLO v3 Video Detection Module")
    parser.add_argument("--confidence", dest="confidence", default=0.5)
    parser.add_argument("--reso", dest="reso", default="64", type=str)
    parser.add_argument("--half", dest="half", action="store_true", help="run the network in fp16")
    return parser.parse_args(["--half"])


if __name__ == "__main__":
    args = arg_parse()
    torch.manual_seed(0)
    model = Darknet()
    model.net_info["height"] = args.reso
    inp_dim = int(model.net_info["height"])
    model.eval()
    if args.half:
        model.half()
    model(get_test_input(inp_dim))  # cause: the warm-up image is float32 while the model is half
    rng = np.random.default_rng(1)
    for frames in range(3):
        frame = rng.integers(0, 256, (inp_dim, inp_dim, 3), dtype=np.uint8)
        img = prep_image(frame, inp_dim)
        if args.half:
            img = img.half()
        with torch.no_grad():
            output = write_results(model(img), float(args.confidence))
        print(f"frame {frames}: {output.size(0)} boxes above confidence")
