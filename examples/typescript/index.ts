// An Alaya NeW training job reading a NAS dataset, and a ModelArts PyTorch job with an OBS input
// and an OBS output channel, through the `mltrain` provider plugin and its TypeScript SDK.
// Provider settings: mltrain:alayaEndpoint, mltrain:alayaApiKey (secret), mltrain:huaweiIamEndpoint,
// mltrain:modelartsEndpoint, mltrain:huaweiProjectName, ... (docs/plugin-install.md).
import * as pulumi from "@pulumi/pulumi";
import * as mltrain from "@mltrain/pulumi-mltrain";

const config = new pulumi.Config();

const datasets = new mltrain.alaya.StorageMount("datasets", {
    storageId: "72a2a885-e45e-4c79-aaf3-e1fa05abdb92",
    storageType: "nas-capacity",
    fileDirectory: "datasets",
    mountPath: "/root/nas/datasets",
});

const sft = new mltrain.alaya.TrainingJob("llama3-sft", {
    productCode: "PRD-TRAIN-1",
    workerCount: 2,
    image: config.require("image"),
    trainingFramework: "pytorch",
    trainingType: "PRE_TRAINING",
    // `mount` is the StorageMount's output, ready for storageMounts (set once the mount is checked).
    storageMounts: datasets.mount.apply(mount => (mount ? [mount] : [])),
    env: { NCCL_DEBUG: "WARN" },
    startCommand: "python3 -m torch.distributed.run train.py --data /root/nas/datasets",
    timeoutHours: 24,
    maxRetryCount: 3,
});

const root = `obs://${config.require("bucket")}/pytorch/fast_example`;
const resnet = new mltrain.modelarts.TrainingJob("resnet-cpu", {
    description: "PyTorch on CPU, data and model on OBS",
    codeDir: `${root}/code/cpu/`,
    bootFile: `${root}/code/cpu/train.py`,
    engineName: "PyTorch",
    engineVersion: "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64",
    flavorId: "modelarts.vm.cpu.8u",
    nodeCount: 1,
    inputs: [{ name: "data_url", obsUrl: `${root}/data/` }],
    outputs: [{ name: "train_url", obsUrl: `${root}/outputs/` }],
    logExportPath: `${root}/log/`,
    autoStopHours: 24,
});

export const trainingTaskId = sft.trainingTaskId;
export const taskStatus = sft.status;
export const taskName = sft.name;
export const modelartsJobId = resnet.jobId;
export const modelartsPhase = resnet.phase;
