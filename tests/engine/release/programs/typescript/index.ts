import * as mltrain from "@mltrain/pulumi-mltrain";

const datasets = new mltrain.alaya.StorageMount("datasets", {
    storageId: "72a2a885-e45e-4c79-aaf3-e1fa05abdb92",
    storageType: "nas-capacity",
    fileDirectory: "datasets",
    mountPath: "/root/nas/datasets",
});
const job = new mltrain.alaya.TrainingJob("job", {
    productCode: "PRD-TRAIN-2",
    workerCount: 2,
    image: "harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu",
    trainingFramework: "pytorch",
    storageMounts: [datasets.mount],
    startCommand: "python3 train.py --data /root/nas/datasets",
    timeoutHours: 12,
});
export const trainingTaskId = job.trainingTaskId;
