package provider

import (
	"context"
	"net/url"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// configuredDataSource holds the client of a data source; every data source embeds it.
type configuredDataSource struct {
	client *Client
}

func (d *configuredDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client = clientOf(req.ProviderData, &resp.Diagnostics)
}

// ---- lanner_worker_queues

var queueObjectType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"id":              types.StringType,
	"tags":            types.ListType{ElemType: types.StringType},
	"allowed_tenants": types.ListType{ElemType: types.StringType},
	"description":     types.StringType,
	"reserved":        types.BoolType,
}}

type workerQueuesDataSource struct{ configuredDataSource }

func NewWorkerQueuesDataSource() datasource.DataSource { return &workerQueuesDataSource{} }

func (d *workerQueuesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_worker_queues"
}

func (d *workerQueuesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Every worker queue, `default` and `system` included.",
		Attributes: map[string]schema.Attribute{
			"queues": schema.ListAttribute{Computed: true, ElementType: queueObjectType},
		},
	}
}

func (d *workerQueuesDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	var views []workerQueueView
	if err := d.client.Get(ctx, d.client.InstancePath("worker-queues"), nil, &views); err != nil {
		apiError(&resp.Diagnostics, "listing worker queues", err)
		return
	}
	queues := make([]attr.Value, len(views))
	for i, view := range views {
		queues[i] = types.ObjectValueMust(queueObjectType.AttrTypes, map[string]attr.Value{
			"id":              types.StringValue(view.ID),
			"tags":            stringList(view.Tags),
			"allowed_tenants": stringList(view.AllowedTenants),
			"description":     optionalString(view.Description),
			"reserved":        types.BoolValue(view.Reserved),
		})
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("queues"), types.ListValueMust(queueObjectType, queues))...)
}

// ---- lanner_worker_groups

var groupObjectType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"id":            types.StringType,
	"name":          types.StringType,
	"description":   types.StringType,
	"reserved":      types.BoolType,
	"subscriptions": types.SetType{ElemType: subscriptionObjectType},
}}

type workerGroupsDataSource struct{ configuredDataSource }

func NewWorkerGroupsDataSource() datasource.DataSource { return &workerGroupsDataSource{} }

func (d *workerGroupsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_worker_groups"
}

func (d *workerGroupsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Every worker group with its subscriptions.",
		Attributes: map[string]schema.Attribute{
			"groups": schema.ListAttribute{Computed: true, ElementType: groupObjectType},
		},
	}
}

func (d *workerGroupsDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	var views []workerGroupView
	if err := d.client.Get(ctx, d.client.InstancePath("worker-groups"), nil, &views); err != nil {
		apiError(&resp.Diagnostics, "listing worker groups", err)
		return
	}
	groups := make([]attr.Value, len(views))
	for i, view := range views {
		groups[i] = types.ObjectValueMust(groupObjectType.AttrTypes, map[string]attr.Value{
			"id":            types.StringValue(view.ID),
			"name":          types.StringValue(view.Name),
			"description":   optionalString(view.Description),
			"reserved":      types.BoolValue(view.Reserved),
			"subscriptions": subscriptionsValue(view.Subscriptions),
		})
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("groups"), types.ListValueMust(groupObjectType, groups))...)
}

// ---- lanner_flows

const flowSearchPageSize = 200

var flowObjectType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"namespace": types.StringType,
	"flow_id":   types.StringType,
	"revision":  types.Int64Type,
	"source":    types.StringType,
}}

type flowsDataSource struct{ configuredDataSource }

type flowsModel struct {
	Namespace types.String `tfsdk:"namespace"`
	Flows     types.List   `tfsdk:"flows"`
}

func NewFlowsDataSource() datasource.DataSource { return &flowsDataSource{} }

func (d *flowsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_flows"
}

func (d *flowsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "The live flows of the provider's tenant.",
		Attributes: map[string]schema.Attribute{
			"namespace": schema.StringAttribute{Optional: true, Description: "Only this namespace and the ones below it."},
			"flows":     schema.ListAttribute{Computed: true, ElementType: flowObjectType},
		},
	}
}

func (d *flowsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var model flowsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &model)...)
	if resp.Diagnostics.HasError() {
		return
	}
	flows := []attr.Value{}
	for page := 1; ; page++ {
		query := url.Values{"page": {strconv.Itoa(page)}, "size": {strconv.Itoa(flowSearchPageSize)}}
		if !model.Namespace.IsNull() {
			query.Set("namespace", model.Namespace.ValueString())
		}
		var result struct {
			Results []flowView `json:"results"`
			Total   int        `json:"total"`
		}
		if err := d.client.Get(ctx, d.client.TenantPath("flows", "search"), query, &result); err != nil {
			apiError(&resp.Diagnostics, "searching flows", err)
			return
		}
		for _, view := range result.Results {
			flows = append(flows, types.ObjectValueMust(flowObjectType.AttrTypes, map[string]attr.Value{
				"namespace": types.StringValue(view.Namespace),
				"flow_id":   types.StringValue(view.ID),
				"revision":  types.Int64Value(view.Revision),
				"source":    types.StringValue(view.Source),
			}))
		}
		if len(result.Results) == 0 || len(flows) >= result.Total {
			break
		}
	}
	model.Flows = types.ListValueMust(flowObjectType, flows)
	resp.Diagnostics.Append(resp.State.Set(ctx, &model)...)
}
