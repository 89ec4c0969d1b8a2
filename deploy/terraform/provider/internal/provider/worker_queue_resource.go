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
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// workerQueueView is a worker queue as the API answers it.
type workerQueueView struct {
	ID             string   `json:"id"`
	Tags           []string `json:"tags"`
	AllowedTenants []string `json:"allowedTenants"`
	Description    *string  `json:"description"`
	Reserved       bool     `json:"reserved"`
}

type workerQueueModel struct {
	ID             types.String `tfsdk:"id"`
	Tags           types.Set    `tfsdk:"tags"`
	AllowedTenants types.Set    `tfsdk:"allowed_tenants"`
	Description    types.String `tfsdk:"description"`
}

type workerQueueResource struct{ configuredResource }

var (
	_ resource.ResourceWithConfigure   = &workerQueueResource{}
	_ resource.ResourceWithImportState = &workerQueueResource{}
)

func NewWorkerQueueResource() resource.Resource { return &workerQueueResource{} }

func (r *workerQueueResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_worker_queue"
}

func (r *workerQueueResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "A worker queue: tasks whose worker selector resolves to it run on workers carrying its tags.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Required:      true,
				Description:   "Queue id (lower case, digits and dashes); changing it replaces the queue.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"tags": schema.SetAttribute{
				Required:    true,
				ElementType: types.StringType,
				Description: "Tags a worker must carry to serve the queue.",
			},
			"allowed_tenants": schema.SetAttribute{
				Optional:    true,
				Computed:    true,
				ElementType: types.StringType,
				Default:     setdefault.StaticValue(types.SetValueMust(types.StringType, []attr.Value{})),
				Description: "Tenants that may use the queue; empty: every tenant.",
			},
			"description": schema.StringAttribute{Optional: true},
		},
	}
}

func (m *workerQueueModel) body(ctx context.Context, diags *diag.Diagnostics) map[string]any {
	body := map[string]any{
		"tags":           setStrings(ctx, m.Tags, diags),
		"allowedTenants": setStrings(ctx, m.AllowedTenants, diags),
	}
	if description := stringPointer(m.Description); description != nil {
		body["description"] = *description
	}
	return body
}

func (m *workerQueueModel) fill(view workerQueueView) {
	m.ID = types.StringValue(view.ID)
	m.Tags = stringSet(view.Tags)
	m.AllowedTenants = stringSet(view.AllowedTenants)
	m.Description = optionalString(view.Description)
}

func (r *workerQueueResource) put(ctx context.Context, model *workerQueueModel, diags *diag.Diagnostics) {
	body := model.body(ctx, diags)
	if diags.HasError() {
		return
	}
	var view workerQueueView
	if _, err := r.client.JSON(ctx, http.MethodPut, r.client.InstancePath("worker-queues", model.ID.ValueString()), body, &view); err != nil {
		apiError(diags, "writing worker queue "+model.ID.ValueString(), err)
		return
	}
	model.fill(view)
}

func (r *workerQueueResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan workerQueueModel
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

func (r *workerQueueResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state workerQueueModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var view workerQueueView
	if err := r.client.Get(ctx, r.client.InstancePath("worker-queues", state.ID.ValueString()), nil, &view); err != nil {
		if IsNotFound(err) {
			resp.State.RemoveResource(ctx)
			return
		}
		apiError(&resp.Diagnostics, "reading worker queue "+state.ID.ValueString(), err)
		return
	}
	state.fill(view)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *workerQueueResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan workerQueueModel
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

func (r *workerQueueResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state workerQueueModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if _, err := r.client.JSON(ctx, http.MethodDelete, r.client.InstancePath("worker-queues", state.ID.ValueString()), nil, nil); err != nil && !IsNotFound(err) {
		apiError(&resp.Diagnostics, "deleting worker queue "+state.ID.ValueString(), err)
	}
}

func (r *workerQueueResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resource.ImportStatePassthroughID(ctx, path.Root("id"), req, resp)
}
