// The Lanner Terraform/OpenTofu provider: worker queues, worker groups and their
// subscriptions, registration tokens and flows, through Lanner's REST API only.
package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"lanner/terraform-provider-lanner/internal/provider"
)

// Set at build time (-ldflags "-X main.version=...").
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run with support for debuggers such as delve")
	flag.Parse()

	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: "registry.opentofu.org/lanner/lanner",
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err.Error())
	}
}
