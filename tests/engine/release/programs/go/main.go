package main

import (
	"github.com/mltrain/pulumi-mltrain/sdk/go/mltrain/alaya"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		datasets, err := alaya.NewStorageMount(ctx, "datasets", &alaya.StorageMountArgs{
			StorageId:     pulumi.String("72a2a885-e45e-4c79-aaf3-e1fa05abdb92"),
			StorageType:   alaya.StorageMountStorageType_Nas_Capacity,
			FileDirectory: pulumi.String("datasets"),
			MountPath:     pulumi.String("/root/nas/datasets"),
		})
		if err != nil {
			return err
		}
		job, err := alaya.NewTrainingJob(ctx, "job", &alaya.TrainingJobArgs{
			ProductCode:       pulumi.String("PRD-TRAIN-2"),
			WorkerCount:       pulumi.Int(2),
			Image:             pulumi.String("harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu"),
			TrainingFramework: alaya.TrainingJobTrainingFrameworkPytorch,
			StorageMounts:     alaya.NasMountArray{datasets.Mount.Elem()},
			StartCommand:      pulumi.String("python3 train.py --data /root/nas/datasets"),
			TimeoutHours:      pulumi.Int(12),
		})
		if err != nil {
			return err
		}
		ctx.Export("trainingTaskId", job.TrainingTaskId)
		return nil
	})
}
