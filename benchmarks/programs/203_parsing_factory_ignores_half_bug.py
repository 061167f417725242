"""Bug: init_parsing_model(half=True) accepts a half flag but never applies it, so the face-parsing net stays float32 while the segmenter, trusting the same flag, feeds it float16 faces; the first conv refuses Half input against Float weights.

family: precision
category: factories
expected: RuntimeError
message: should be the same
source: https://github.com/xinntao/facexlib/issues/41
"""
import torch
import torch.nn as nn


class BiSeNet(nn.Module):
    def __init__(self, num_class=19):
        super().__init__()
        self.context = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU())
        self.spatial = nn.Sequential(nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU())
        self.out = nn.Conv2d(32, num_class, 1)

    def forward(self, x):
        feat = self.spatial(self.context(x))  # bug: float16 faces into the float32 conv
        return nn.functional.interpolate(self.out(feat), size=x.shape[-2:], mode="bilinear", align_corners=False)


def init_parsing_model(model_name="bisenet", half=False, device="cpu"):
    if model_name == "bisenet":
        model = BiSeNet(num_class=19)
    else:
        raise NotImplementedError(f"{model_name} is not implemented.")
    model.eval()
    model = model.to(device)  # cause: the half flag is accepted but the weights stay float32
    return model


class FaceSegmenter(nn.Module):
    def __init__(self, half=True, device="cpu"):
        super().__init__()
        self.half = half
        self.net = init_parsing_model("bisenet", half=half, device=device)
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))

    @torch.no_grad()
    def forward(self, images):
        images = (images - self.mean) / self.std
        if self.half:
            images = images.half()
        return self.net(images).argmax(dim=1)


def main():
    torch.manual_seed(0)
    segmenter = FaceSegmenter(half=True)
    faces = torch.rand(2, 3, 32, 32)
    masks = segmenter(faces)
    print(masks.shape, masks.unique())


if __name__ == "__main__":
    main()
