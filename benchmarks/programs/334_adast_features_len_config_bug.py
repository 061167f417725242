"""Bug: the classifier's input width comes from the dataset config (features_len * final_out_channels), and the config copied from the EEG dataset says features_len=29 while the 3000-sample windows of this dataset leave 32 time steps after the feature extractor; the Linear receives 32*8 features but was sized for 29*8.

family: shape
category: configuration
expected: RuntimeError
message: mat1 and mat2 shapes cannot be multiplied (4x256 and 232x5)
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
    features_len = 29  # cause: copied from another dataset's config
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
        return self.logits(input)  # bug: 32*8 features into a Linear sized for 29*8


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
