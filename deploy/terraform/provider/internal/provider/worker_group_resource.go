package provider

import (
	"context"
	"net/http"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

const defaultSubscriptionMode = "STRICT"

// subscriptionView is a subscription as the API answers it.
type subscriptionView struct {
	WorkerQueueID   string `json:"workerQueueId"`
	ReservedPercent *int64 `json:"reservedPercent"`
	Mode            string `json:"mode"`
}

// workerGroupView is a worker group as the API answers it.
type workerGroupView struct {
	ID            string             `json:"id"`
	Name          string             `json:"name"`
	Description   *string            `json:"description"`
	Reserved      bool               `json:"reserved"`
	Subscriptions []subscriptionView `json:"subscriptions"`
}

type subscriptionModel struct {
	WorkerQueueID   types.String `tfsdk:"worker_queue_id"`
	ReservedPercent types.Int64  `tfsdk:"reserved_percent"`
	Mode            types.String `tfsdk:"mode"`
}

var subscriptionObjectType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"worker_queue_id":  types.StringType,
	"reserved_percent": types.Int64Type,
	"mode":             types.StringType,
}}

type workerGroupModel struct {
	ID            types.String `tfsdk:"id"`
	Name          types.String `tfsdk:"name"`
	Description   types.String `tfsdk:"description"`
	Subscriptions types.Set    `tfsdk:"subscriptions"`
}

type workerGroupResource struct{ configuredResource }

var (
	_ resource.ResourceWithConfigure   = &workerGroupResource{}
	_ resource.ResourceWithImportState = &workerGroupResource{}
)

func NewWorkerGroupResource() resource.Resource { return &workerGroupResource{} }

func (r *workerGroupResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_worker_group"
}

func (r *workerGroupResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "A worker group: workers that register with its tokens serve the queues it subscribes to.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Required:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"name":        schema.StringAttribute{Required: true},
			"description": schema.StringAttribute{Optional: true},
			"subscriptions": schema.SetNestedAttribute{
				Optional: true,
				Description: "The group's subscriptions, as a whole. Leave it out to manage them with " +
					"lanner_worker_group_subscription resources instead (then this resource never touches them).",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"worker_queue_id": schema.StringAttribute{Required: true},
					"reserved_percent": schema.Int64Attribute{
						Optional:    true,
						Description: "Share of the group's slots reserved for the queue (1..100); unset: shared pool only.",
					},
					"mode": schema.StringAttribute{
						Optional:    true,
						Computed:    true,
						Default:     stringdefault.StaticString(defaultSubscriptionMode),
						Description: "STRICT (reserved slots stay idle for the queue) or ELASTIC (lent while idle).",
					},
				}},
			},
		},
	}
}

func subscriptionBody(s subscriptionModel) map[string]any {
	body := map[string]any{"workerQueueId": s.WorkerQueueID.ValueString()}
	if !s.ReservedPercent.IsNull() && !s.ReservedPercent.IsUnknown() {
		body["reservedPercent"] = s.ReservedPercent.ValueInt64()
	}
	if !s.Mode.IsNull() && !s.Mode.IsUnknown() {
		body["mode"] = s.Mode.ValueString()
	}
	return body
}

func subscriptionsValue(views []subscriptionView) types.Set {
	elements := make([]attr.Value, len(views))
	for i, view := range views {
		percent := types.Int64Null()
		if view.ReservedPercent != nil {
			percent = types.Int64Value(*view.ReservedPercent)
		}
		elements[i] = types.ObjectValueMust(subscriptionObjectType.AttrTypes, map[string]attr.Value{
			"worker_queue_id":  types.StringValue(view.WorkerQueueID),
			"reserved_percent": percent,
			"mode":             types.StringValue(view.Mode),
		})
	}
	return types.SetValueMust(subscriptionObjectType, elements)
}

func (m *workerGroupModel) body(ctx context.Context, diags *diag.Diagnostics) map[string]any {
	body := map[string]any{"name": m.Name.ValueString()}
	if description := stringPointer(m.Description); description != nil {
		body["description"] = *description
	}
	// Without the attribute the API keeps the group's subscriptions as they are.
	if !m.Subscriptions.IsNull() && !m.Subscriptions.IsUnknown() {
		var subscriptions []subscriptionModel
		diags.Append(m.Subscriptions.ElementsAs(ctx, &subscriptions, false)...)
		list := make([]map[string]any, len(subscriptions))
		for i, s := range subscriptions {
			list[i] = subscriptionBody(s)
		}
		body["subscriptions"] = list
	}
	return body
}

func (m *workerGroupModel) fill(view workerGroupView) {
	m.ID = types.StringValue(view.ID)
	m.Name = types.StringValue(view.Name)
	m.Description = optionalString(view.Description)
	// Subscriptions left to lanner_worker_group_subscription resources stay out of this state.
	if !m.Subscriptions.IsNull() {
		m.Subscriptions = subscriptionsValue(view.Subscriptions)
	}
}

func (r *workerGroupResource) put(ctx context.Context, model *workerGroupModel, diags *diag.Diagnostics) {
	body := model.body(ctx, diags)
	if diags.HasError() {
		return
	}
	var view workerGroupView
	if _, err := r.client.JSON(ctx, http.MethodPut, r.client.InstancePath("worker-groups", model.ID.ValueString()), body, &view); err != nil {
		apiError(diags, "writing worker group "+model.ID.ValueString(), err)
		return
	}
	model.fill(view)
}

func (r *workerGroupResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan workerGroupModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.put(ctx, &plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *workerGroupResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state workerGroupModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var view workerGroupView
	if err := r.client.Get(ctx, r.client.InstancePath("worker-groups", state.ID.ValueString()), nil, &view); err != nil {
		if IsNotFound(err) {
			resp.State.RemoveResource(ctx)
			return
		}
		apiError(&resp.Diagnostics, "reading worker group "+state.ID.ValueString(), err)
		return
	}
	state.fill(view)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *workerGroupResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan workerGroupModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.put(ctx, &plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *workerGroupResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state workerGroupModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if _, err := r.client.JSON(ctx, http.MethodDelete, r.client.InstancePath("worker-groups", state.ID.ValueString()), nil, nil); err != nil && !IsNotFound(err) {
		apiError(&resp.Diagnostics, "deleting worker group "+state.ID.ValueString(), err)
	}
}

// ImportState takes the group id. The imported group leaves its subscriptions alone (as for
// lanner_worker_group_subscription resources); a configuration that lists them takes them
// over on the next apply.
func (r *workerGroupResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resource.ImportStatePassthroughID(ctx, path.Root("id"), req, resp)
}
