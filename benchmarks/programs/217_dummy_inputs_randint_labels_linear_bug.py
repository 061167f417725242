"""Bug: the smoke-test helper builds random inputs for the video+label network, drawing the label vector with torch.randint (int64); the network's label_block Linear refuses the Long labels against its Float weight.

family: int-float
category: factories
expected: RuntimeError
message: mat1 and mat2 must have the same dtype
source: https://github.com/pytorch/pytorch/issues/118280
"""
import torch
import torch.nn as nn


class VestibularNetwork(nn.Module):
    def __init__(self, num_frames, num_labels, hidden=16, num_outputs=3):
        super().__init__()
        self.video_block = nn.Sequential(
            nn.Conv3d(3, 8, kernel_size=3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool3d(1), nn.Flatten(),
            nn.Linear(8, hidden))
        self.label_block = nn.Sequential(nn.Linear(num_labels, hidden), nn.ReLU())
        self.classifier = nn.Linear(2 * hidden, num_outputs)

    def forward(self, video_frames, labels):
        video_x = self.video_block(video_frames)
        label_x = self.label_block(labels)  # bug: int64 labels into the float32 Linear
        x = torch.cat((video_x, label_x), dim=1)
        return self.classifier(x)


def create_model(num_frames=4, num_labels=5):
    model = VestibularNetwork(num_frames=num_frames, num_labels=num_labels)
    return model.eval()


def make_dummy_inputs(batch_size=2, num_frames=4, height=16, width=16, num_labels=5):
    random_video_frames = torch.rand(batch_size, 3, num_frames, height, width)
    random_labels = torch.randint(0, 2, (batch_size, num_labels))  # cause: 0/1 labels drawn as int64
    return random_video_frames, random_labels


def smoke_test():
    torch.manual_seed(0)
    model = create_model()
    random_video_frames, random_labels = make_dummy_inputs()
    with torch.inference_mode():
        pred = model(random_video_frames, random_labels)
    print(pred.shape, pred.softmax(dim=1))


if __name__ == "__main__":
    smoke_test()
