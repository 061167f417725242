"""Bug: the geometric matching module's correlation layer returns its (B, h*w, h, w) volume through two transposes; the regression convs keep that channels-last memory layout, and FeatureRegression's x.view(x.size(0), -1) cannot flatten the result.

family: shape
category: model-shapes
expected: RuntimeError
message: view size is not compatible with input tensor's size and stride
source: https://github.com/sergeywong/cp-vton/issues/30
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class FeatureExtraction(nn.Module):
    def __init__(self, input_nc, ngf=16):
        super().__init__()
        self.model = nn.Sequential(
            nn.Conv2d(input_nc, ngf, 4, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(ngf, ngf * 2, 4, stride=2, padding=1), nn.ReLU(),
        )

    def forward(self, x):
        return self.model(x)


class FeatureCorrelation(nn.Module):
    def forward(self, feature_A, feature_B):
        b, c, h, w = feature_A.size()
        feature_A = feature_A.transpose(2, 3).contiguous().view(b, c, h * w)
        feature_B = feature_B.view(b, c, h * w).transpose(1, 2)
        feature_mul = torch.bmm(feature_B, feature_A)
        return feature_mul.view(b, h, w, h * w).transpose(2, 3).transpose(1, 2)  # cause: a transposed, channels-last volume


class FeatureRegression(nn.Module):
    def __init__(self, input_nc, output_dim=6):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(input_nc, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU())
        self.linear = nn.Linear(32 * 8 * 6, output_dim)

    def forward(self, x):
        x = self.conv(x)
        x = x.view(x.size(0), -1)  # bug: the conv output kept the channels-last strides
        return torch.tanh(self.linear(x))


class GMM(nn.Module):
    def __init__(self, fine_height=32, fine_width=24):
        super().__init__()
        self.extractionA = FeatureExtraction(22)
        self.extractionB = FeatureExtraction(3)
        self.correlation = FeatureCorrelation()
        self.regression = FeatureRegression(input_nc=(fine_height // 4) * (fine_width // 4))

    def forward(self, inputA, inputB):
        featureA = nn.functional.normalize(self.extractionA(inputA), dim=1)
        featureB = nn.functional.normalize(self.extractionB(inputB), dim=1)
        return self.regression(self.correlation(featureA, featureB))


torch.manual_seed(0)
agnostic = torch.rand(8, 22, 32, 24)
cloth = torch.rand(8, 3, 32, 24)
identity_theta = torch.tensor([1.0, 0.0, 0.0, 0.0, 1.0, 0.0]).expand(8, 6)
loader = DataLoader(TensorDataset(agnostic, cloth, identity_theta), batch_size=4, shuffle=True)
model = GMM()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-4, betas=(0.5, 0.999))
for step, (a, c, theta_gt) in enumerate(loader):
    theta = model(a, c)
    loss = nn.functional.l1_loss(theta, theta_gt)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}")
