"""Bug: the MTCNN detector's image_tools.convert_image_to_tensor casts the resized image to float64 before a torchvision-style to_tensor, which only converts and scales uint8 arrays and passes others through; P-Net's first conv gets a double batch.

family: numpy-float64
category: factories
expected: RuntimeError
message: Input type (double)
source: https://github.com/kuaikuaikim/dface/issues/33
"""
import numpy as np
import torch
import torch.nn as nn


def to_tensor(pic):
    img = torch.from_numpy(pic.transpose((2, 0, 1))).contiguous()
    if img.dtype == torch.uint8:
        return img.float().div(255)
    return img


def convert_image_to_tensor(image):
    image = image.astype(np.float64)  # cause: float64 array, passed through to_tensor unchanged
    return to_tensor(image)


def resize_image(img, scale):
    h, w = img.shape[:2]
    rows = (np.arange(int(h * scale)) / scale).astype(int)
    cols = (np.arange(int(w * scale)) / scale).astype(int)
    return img[rows][:, cols]


class PNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.pre_layer = nn.Sequential(
            nn.Conv2d(3, 10, 3), nn.PReLU(), nn.MaxPool2d(2, 2),
            nn.Conv2d(10, 16, 3), nn.PReLU(), nn.Conv2d(16, 32, 3), nn.PReLU())
        self.conv4_1 = nn.Conv2d(32, 1, 1)
        self.conv4_2 = nn.Conv2d(32, 4, 1)

    def forward(self, x):
        x = self.pre_layer(x)  # bug: float64 image pyramid into the float32 P-Net
        return torch.sigmoid(self.conv4_1(x)), self.conv4_2(x)


class MtcnnDetector:
    def __init__(self, pnet, min_face_size=12, scale_factor=0.709):
        self.pnet_detector = pnet.eval()
        self.min_face_size, self.scale_factor = min_face_size, scale_factor

    def detect_pnet(self, im):
        current_scale = 12.0 / self.min_face_size
        im_resized = resize_image(im, current_scale)
        boxes = []
        while min(im_resized.shape[:2]) > 12:
            feed_imgs = torch.stack([convert_image_to_tensor(im_resized)])
            with torch.no_grad():
                cls_map, reg = self.pnet_detector(feed_imgs)
            boxes.append((cls_map > 0.6).sum().item())
            current_scale *= self.scale_factor
            im_resized = resize_image(im, current_scale)
        return boxes


def main():
    torch.manual_seed(0)
    img = np.random.default_rng(0).integers(0, 256, size=(48, 64, 3), dtype=np.uint8)
    detector = MtcnnDetector(PNet(), min_face_size=24)
    print(detector.detect_pnet(img))


if __name__ == "__main__":
    main()
