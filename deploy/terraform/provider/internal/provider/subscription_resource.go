package provider

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

type subscriptionResourceModel struct {
	ID              types.String `tfsdk:"id"`
	WorkerGroupID   types.String `tfsdk:"worker_group_id"`
	WorkerQueueID   types.String `tfsdk:"worker_queue_id"`
	ReservedPercent types.Int64  `tfsdk:"reserved_percent"`
	Mode            types.String `tfsdk:"mode"`
}

type subscriptionResource struct{ configuredResource }

var (
	_ resource.ResourceWithConfigure   = &subscriptionResource{}
	_ resource.ResourceWithImportState = &subscriptionResource{}
)

func NewSubscriptionResource() resource.Resource { return &subscriptionResource{} }

func (r *subscriptionResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_worker_group_subscription"
}

func (r *subscriptionResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{
		Description: "One subscription of a worker group to a queue, managed on its own " +
			"(for a group whose lanner_worker_group leaves subscriptions out).",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "<worker_group_id>/<worker_queue_id>",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"worker_group_id":  schema.StringAttribute{Required: true, PlanModifiers: replace},
			"worker_queue_id":  schema.StringAttribute{Required: true, PlanModifiers: replace},
			"reserved_percent": schema.Int64Attribute{Optional: true, Description: "1..100; unset: shared pool only."},
			"mode": schema.StringAttribute{
				Optional: true,
				Computed: true,
				Default:  stringdefault.StaticString(defaultSubscriptionMode),
			},
		},
	}
}

func (r *subscriptionResource) put(ctx context.Context, model *subscriptionResourceModel, diags *diag.Diagnostics) {
	body := subscriptionBody(subscriptionModel{WorkerQueueID: model.WorkerQueueID, ReservedPercent: model.ReservedPercent, Mode: model.Mode})
	delete(body, "workerQueueId")
	group, queue := model.WorkerGroupID.ValueString(), model.WorkerQueueID.ValueString()
	var view subscriptionView
	if _, err := r.client.JSON(ctx, http.MethodPut, r.client.InstancePath("worker-groups", group, "subscriptions", queue), body, &view); err != nil {
		apiError(diags, fmt.Sprintf("writing the subscription of worker group %s to %s", group, queue), err)
		return
	}
	model.ID = types.StringValue(group + "/" + queue)
	model.fillFrom(view)
}

func (m *subscriptionResourceModel) fillFrom(view subscriptionView) {
	m.WorkerQueueID = types.StringValue(view.WorkerQueueID)
	m.Mode = types.StringValue(view.Mode)
	if view.ReservedPercent == nil {
		m.ReservedPercent = types.Int64Null()
	} else {
		m.ReservedPercent = types.Int64Value(*view.ReservedPercent)
	}
}

func (r *subscriptionResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan subscriptionResourceModel
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

func (r *subscriptionResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state subscriptionResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var group workerGroupView
	if err := r.client.Get(ctx, r.client.InstancePath("worker-groups", state.WorkerGroupID.ValueString()), nil, &group); err != nil {
		if IsNotFound(err) {
			resp.State.RemoveResource(ctx)
			return
		}
		apiError(&resp.Diagnostics, "reading worker group "+state.WorkerGroupID.ValueString(), err)
		return
	}
	for _, view := range group.Subscriptions {
		if view.WorkerQueueID == state.WorkerQueueID.ValueString() {
			state.ID = types.StringValue(group.ID + "/" + view.WorkerQueueID)
			state.fillFrom(view)
			resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
			return
		}
	}
	resp.State.RemoveResource(ctx)
}

func (r *subscriptionResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan subscriptionResourceModel
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

func (r *subscriptionResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state subscriptionResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	group, queue := state.WorkerGroupID.ValueString(), state.WorkerQueueID.ValueString()
	if _, err := r.client.JSON(ctx, http.MethodDelete, r.client.InstancePath("worker-groups", group, "subscriptions", queue), nil, nil); err != nil && !IsNotFound(err) {
		apiError(&resp.Diagnostics, fmt.Sprintf("deleting the subscription of worker group %s to %s", group, queue), err)
	}
}

// ImportState takes `<worker_group_id>/<worker_queue_id>`.
func (r *subscriptionResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	group, queue, ok := strings.Cut(req.ID, "/")
	if !ok || group == "" || queue == "" {
		resp.Diagnostics.AddError("Invalid import id", fmt.Sprintf("expected <worker_group_id>/<worker_queue_id>, got %q", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("worker_group_id"), group)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("worker_queue_id"), queue)...)
}
