// An Alaya NeW training job reading a NAS dataset, and a ModelArts PyTorch job with an OBS input
// and an OBS output channel, through the `mltrain` provider plugin and its Go SDK.
// Provider settings: mltrain:alayaEndpoint, mltrain:alayaApiKey (secret), mltrain:huaweiIamEndpoint,
// mltrain:modelartsEndpoint, mltrain:huaweiProjectName, ... (docs/plugin-install.md).
package main

import (
	"fmt"

	"github.com/mltrain/pulumi-mltrain/sdk/go/mltrain/alaya"
	"github.com/mltrain/pulumi-mltrain/sdk/go/mltrain/modelarts"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")

		datasets, err := alaya.NewStorageMount(ctx, "datasets", &alaya.StorageMountArgs{
			StorageId:     pulumi.String("72a2a885-e45e-4c79-aaf3-e1fa05abdb92"),
			StorageType:   alaya.StorageMountStorageType_Nas_Capacity,
			FileDirectory: pulumi.String("datasets"),
			MountPath:     pulumi.String("/root/nas/datasets"),
		})
		if err != nil {
			return err
		}

		sft, err := alaya.NewTrainingJob(ctx, "llama3-sft", &alaya.TrainingJobArgs{
			ProductCode:       pulumi.String("PRD-TRAIN-1"),
			WorkerCount:       pulumi.Int(2),
			Image:             pulumi.String(cfg.Require("image")),
			TrainingFramework: alaya.TrainingJobTrainingFrameworkPytorch,
			TrainingType:      alaya.TrainingJobTrainingType_PRE_TRAINING,
			// The StorageMount's `mount` output, ready for storageMounts.
			StorageMounts: alaya.NasMountArray{datasets.Mount.Elem()},
			Env:           pulumi.StringMap{"NCCL_DEBUG": pulumi.String("WARN")},
			StartCommand:  pulumi.String("python3 -m torch.distributed.run train.py --data /root/nas/datasets"),
			TimeoutHours:  pulumi.Int(24),
			MaxRetryCount: pulumi.Int(3),
		})
		if err != nil {
			return err
		}

		root := fmt.Sprintf("obs://%s/pytorch/fast_example", cfg.Require("bucket"))
		resnet, err := modelarts.NewTrainingJob(ctx, "resnet-cpu", &modelarts.TrainingJobArgs{
			Description:   pulumi.String("PyTorch on CPU, data and model on OBS"),
			CodeDir:       pulumi.String(root + "/code/cpu/"),
			BootFile:      pulumi.String(root + "/code/cpu/train.py"),
			EngineName:    pulumi.String("PyTorch"),
			EngineVersion: pulumi.String("pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"),
			FlavorId:      pulumi.String("modelarts.vm.cpu.8u"),
			NodeCount:     pulumi.Int(1),
			Inputs: modelarts.DataInputArray{
				modelarts.DataInputArgs{Name: pulumi.String("data_url"), ObsUrl: pulumi.String(root + "/data/")},
			},
			Outputs: modelarts.ObsChannelArray{
				modelarts.ObsChannelArgs{Name: pulumi.String("train_url"), ObsUrl: pulumi.String(root + "/outputs/")},
			},
			LogExportPath: pulumi.String(root + "/log/"),
			AutoStopHours: pulumi.Int(24),
		})
		if err != nil {
			return err
		}

		ctx.Export("trainingTaskId", sft.TrainingTaskId)
		ctx.Export("taskStatus", sft.Status)
		ctx.Export("taskName", sft.Name)
		ctx.Export("modelartsJobId", resnet.JobId)
		ctx.Export("modelartsPhase", resnet.Phase)
		return nil
	})
}
