"""Fixed twin of 362_hed_unet_rgba_tiles_config_channels_bug.py: the alpha band is stripped when a tile is loaded (tensor[:3]), as the maintainer suggested, so the 3-channel model gets RGB.

family: shape
category: configuration
expected: success
source: https://github.com/khdlr/HED-UNet/issues/7
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CONFIG = {
    "model_args": {"input_channels": 3, "base_channels": 16, "stack_height": 3, "batch_norm": True},
    "batch_size": 8,
    "epochs": 1,
    "learning_rate": 0.001,
}


def make_scene_tiles(n_tiles, size=32, seed=0):
    g = torch.Generator().manual_seed(seed)
    tiles = {}
    for i in range(n_tiles):
        rgba = torch.randint(0, 256, (4, size, size), generator=g, dtype=torch.uint8)  # 32-bit PNG, alpha included
        mask = (torch.rand(1, size, size, generator=g) > 0.5).to(torch.uint8)
        tiles[f"scene0/{i}"] = (rgba, mask)
    return tiles


def transform_fn(sample):
    data, mask = sample
    return (data.to(torch.float) / 127.0) - 1.0, mask.to(torch.float)


def get_batch(store, data_names):
    data = []
    for name in data_names:
        tensor, mask = store[name]
        tensor = tensor[:3]
        data.append(transform_fn((tensor, mask)))
    return [torch.stack(tensors, dim=0) for tensors in zip(*data)]


class HEDUNet(nn.Module):
    def __init__(self, input_channels, base_channels=16, stack_height=3, batch_norm=True):
        super().__init__()
        self.init = nn.Conv2d(input_channels, base_channels, 1)
        chans = [base_channels * 2 ** i for i in range(stack_height + 1)]
        self.down = nn.ModuleList([nn.Sequential(nn.Conv2d(c, c2, 3, stride=2, padding=1),
                                                 nn.BatchNorm2d(c2) if batch_norm else nn.Identity(), nn.ReLU())
                                   for c, c2 in zip(chans[:-1], chans[1:])])
        self.predictors = nn.ModuleList([nn.Conv2d(c, 1, 1) for c in chans[1:]])

    def forward(self, x):
        size = x.shape[-2:]
        x = self.init(x)
        preds = []
        for down, predict in zip(self.down, self.predictors):
            x = down(x)
            preds.append(F.interpolate(predict(x), size=size, mode="bilinear", align_corners=False))
        return torch.cat(preds, dim=1).mean(dim=1, keepdim=True)


if __name__ == "__main__":
    torch.manual_seed(0)
    store = make_scene_tiles(16)
    names = sorted(store)
    model = HEDUNet(**CONFIG["model_args"])
    optimizer = torch.optim.Adam(model.parameters(), lr=CONFIG["learning_rate"])
    bs = CONFIG["batch_size"]
    for epoch in range(CONFIG["epochs"]):
        for start in range(0, len(names), bs):
            img, target = get_batch(store, names[start:start + bs])
            loss = F.binary_cross_entropy_with_logits(model(img), target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")
