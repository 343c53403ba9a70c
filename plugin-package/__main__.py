from pulumi_mltrain.plugin import main

main()
