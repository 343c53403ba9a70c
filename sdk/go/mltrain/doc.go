// Pulumi resources for ML training platforms: Alaya NeW distributed training and Huawei Cloud ModelArts v2 (pulumi-mltrain), as Python dynamic resources and as the provider plugin `mltrain`.
package mltrain
