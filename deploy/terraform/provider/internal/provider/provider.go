package provider

import (
	"context"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

const (
	defaultURL    = "http://127.0.0.1:8080"
	defaultTenant = "main"
)

type lannerProvider struct {
	version string
}

type providerModel struct {
	URL    types.String `tfsdk:"url"`
	Token  types.String `tfsdk:"token"`
	Tenant types.String `tfsdk:"tenant"`
}

// New returns the provider factory that providerserver serves.
func New(version string) func() provider.Provider {
	return func() provider.Provider { return &lannerProvider{version: version} }
}

func (p *lannerProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "lanner"
	resp.Version = p.version
}

func (p *lannerProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Lanner's worker topology (queues, groups, subscriptions, registration tokens) and flows, through its REST API.",
		Attributes: map[string]schema.Attribute{
			"url": schema.StringAttribute{
				Optional:    true,
				Description: "Base URL of the Lanner API; else LANNER_URL, else " + defaultURL + ".",
			},
			"token": schema.StringAttribute{
				Optional:    true,
				Sensitive:   true,
				Description: "API token of an instance admin; else LANNER_TOKEN.",
			},
			"tenant": schema.StringAttribute{
				Optional:    true,
				Description: "Tenant of the flows; else LANNER_TENANT, else " + defaultTenant + ".",
			},
		},
	}
}

func firstOf(value types.String, variable, fallback string) string {
	if !value.IsNull() && !value.IsUnknown() && value.ValueString() != "" {
		return value.ValueString()
	}
	if env := os.Getenv(variable); env != "" {
		return env
	}
	return fallback
}

func (p *lannerProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var config providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	token := firstOf(config.Token, "LANNER_TOKEN", "")
	if token == "" {
		resp.Diagnostics.AddAttributeError(path.Root("token"), "No Lanner API token",
			"Set the provider's token attribute or the LANNER_TOKEN variable to an instance admin's API token.")
		return
	}
	client := NewClient(firstOf(config.URL, "LANNER_URL", defaultURL), token, firstOf(config.Tenant, "LANNER_TENANT", defaultTenant))
	resp.ResourceData = client
	resp.DataSourceData = client
}

func (p *lannerProvider) Resources(_ context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		NewWorkerQueueResource,
		NewWorkerGroupResource,
		NewSubscriptionResource,
		NewRegistrationTokenResource,
		NewFlowResource,
	}
}

func (p *lannerProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		NewWorkerQueuesDataSource,
		NewWorkerGroupsDataSource,
		NewFlowsDataSource,
	}
}
