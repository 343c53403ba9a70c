"""An Alaya NeW training task reading a NAS directory, through the plugin's Python SDK."""

import pulumi
from pulumi_mltrain_native import alaya

datasets = alaya.StorageMount("datasets", storage_id="72a2a885-e45e-4c79-aaf3-e1fa05abdb92",
                              storage_type="nas-capacity", file_directory="datasets",
                              mount_path="/root/nas/datasets")
job = alaya.TrainingJob("job", product_code="PRD-TRAIN-2", worker_count=2,
                        image="harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu",
                        training_framework="pytorch", storage_mounts=[datasets.mount],
                        start_command="python3 train.py --data /root/nas/datasets", timeout_hours=12)
pulumi.export("trainingTaskId", job.training_task_id)
