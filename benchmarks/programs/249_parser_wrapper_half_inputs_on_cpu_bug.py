"""Bug: the document-parser wrapper halves the model only when it runs on CUDA, but always casts the processed page image with .half(); on a CPU machine the float16 pixels reach the float32 patch-embedding convolution.

family: precision
category: mixed-precision
expected: RuntimeError
message: should be the same
source: https://github.com/bytedance/Dolphin/pull/148
"""
import torch
import torch.nn as nn


class ImageProcessor:
    def __init__(self, size=32):
        self.size = size

    def __call__(self, image):
        pixel = torch.as_tensor(image, dtype=torch.float32).permute(2, 0, 1) / 255.0
        pixel = nn.functional.interpolate(pixel[None], size=(self.size, self.size), mode="bilinear")
        return (pixel - 0.5) / 0.5


class VisionEncoderDecoder(nn.Module):
    def __init__(self, vocab=30, dim=16, patch=8):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, dim, patch, stride=patch)
        self.decoder = nn.GRU(dim, dim, batch_first=True)
        self.lm_head = nn.Linear(dim, vocab)

    def forward(self, pixel_values):
        patches = self.patch_embed(pixel_values).flatten(2).transpose(1, 2)  # bug: half pixels, float32 convolution
        hidden, _ = self.decoder(patches)
        return self.lm_head(hidden)


class DOLPHIN:
    def __init__(self):
        self.processor = ImageProcessor()
        self.model = VisionEncoderDecoder()
        self.model.eval()
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        self.model.to(self.device)
        if self.device == "cuda":
            self.model = self.model.half()

    def chat(self, prompt, image):
        pixel_values = self.processor(image).half().to(self.device)  # cause: always float16, whatever the model's dtype
        with torch.no_grad():
            logits = self.model(pixel_values)
        return f"{prompt}: " + " ".join(str(t) for t in logits.argmax(-1)[0].tolist()[:8])


def main():
    torch.manual_seed(0)
    page = torch.randint(0, 256, (48, 40, 3), dtype=torch.uint8).numpy()
    model = DOLPHIN()
    print(model.chat("Parse the reading order of this document.", page))


if __name__ == "__main__":
    main()
