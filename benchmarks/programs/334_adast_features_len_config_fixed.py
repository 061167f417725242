"""Fixed twin of 334_adast_features_len_config_bug.py: features_len matches the 32 time steps the feature extractor leaves for 3000-sample windows.

family: shape
category: configuration
expected: success
source: https://github.com/emadeldeen24/ADAST/issues/5
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Config:
    input_channels = 1
    kernel_size = 25
    stride = 6
    mid_channels = 8
    final_out_channels = 8
    features_len = 32
    num_classes = 5
    seq_len = 3000
    batch_size = 4


class CNNFeatureExtractor(nn.Module):
    def __init__(self, configs):
        super().__init__()
        self.conv_block1 = nn.Sequential(nn.Conv1d(configs.input_channels, configs.mid_channels, configs.kernel_size,
                                                   stride=configs.stride, padding=configs.kernel_size // 2, bias=False),
                                         nn.BatchNorm1d(configs.mid_channels), nn.ReLU(), nn.MaxPool1d(2, 2, padding=1))
        self.conv_block2 = nn.Sequential(nn.Conv1d(configs.mid_channels, configs.final_out_channels, 8, padding=4, bias=False),
                                         nn.BatchNorm1d(configs.final_out_channels), nn.ReLU(), nn.MaxPool1d(4, 4, padding=1))
        self.conv_block3 = nn.Sequential(nn.MaxPool1d(2, 2, padding=1))

    def forward(self, x):
        return self.conv_block3(self.conv_block2(self.conv_block1(x)))


class Classifier(nn.Module):
    def __init__(self, configs):
        super().__init__()
        model_output_dim = configs.features_len
        self.logits = nn.Linear(model_output_dim * configs.final_out_channels, configs.num_classes)

    def forward(self, input):
        return self.logits(input)


if __name__ == "__main__":
    torch.manual_seed(0)
    cfg = Config()
    g = torch.Generator().manual_seed(0)
    data = TensorDataset(torch.randn(8, 1, cfg.seq_len, generator=g), torch.randint(0, cfg.num_classes, (8,), generator=g))
    feature_extractor, classifier = CNNFeatureExtractor(cfg), Classifier(cfg)
    params = list(feature_extractor.parameters()) + list(classifier.parameters())
    optimizer = torch.optim.Adam(params, lr=1e-3)
    for src_x, src_y in DataLoader(data, batch_size=cfg.batch_size, shuffle=True, generator=g):
        src_feat = feature_extractor(src_x).reshape(src_x.shape[0], -1)
        loss = nn.functional.cross_entropy(classifier(src_feat), src_y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(src_feat.shape, f"loss {loss.item():.4f}")
