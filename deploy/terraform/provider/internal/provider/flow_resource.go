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
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"gopkg.in/yaml.v3"
)

type flowView struct {
	ID        string `json:"id"`
	Namespace string `json:"namespace"`
	Revision  int64  `json:"revision"`
	Source    string `json:"source"`
}

type flowModel struct {
	ID        types.String `tfsdk:"id"`
	Namespace types.String `tfsdk:"namespace"`
	FlowID    types.String `tfsdk:"flow_id"`
	Source    types.String `tfsdk:"source"`
	Revision  types.Int64  `tfsdk:"revision"`
}

type flowResource struct{ configuredResource }

var (
	_ resource.ResourceWithConfigure   = &flowResource{}
	_ resource.ResourceWithImportState = &flowResource{}
	_ resource.ResourceWithModifyPlan  = &flowResource{}
)

func NewFlowResource() resource.Resource { return &flowResource{} }

func (r *flowResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_flow"
}

func (r *flowResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{
		Description: "A flow from its YAML source, in the provider's tenant. The plan validates the source " +
			"through the API (POST /flows/validate) and names each problem by its YAML path; each change " +
			"saves a new revision.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "<namespace>/<flow_id>",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"namespace": schema.StringAttribute{Required: true, PlanModifiers: replace, Description: "Must match the source's namespace."},
			"flow_id":   schema.StringAttribute{Required: true, PlanModifiers: replace, Description: "Must match the source's id."},
			"source":    schema.StringAttribute{Required: true, Description: "The flow's YAML, as Lanner stores and shows it."},
			"revision":  schema.Int64Attribute{Computed: true, Description: "The revision the last apply saved."},
		},
	}
}

// ModifyPlan validates the planned source with the server, so a broken flow fails `plan`, not `apply`.
func (r *flowResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.client == nil {
		return
	}
	var plan flowModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || plan.Source.IsUnknown() || plan.Source.IsNull() {
		return
	}
	source := plan.Source.ValueString()
	var problems []ProblemEntry
	if _, err := r.client.YAML(ctx, http.MethodPost, r.client.TenantPath("flows", "validate"), source, &problems); err != nil {
		apiError(&resp.Diagnostics, "validating the flow", err)
		return
	}
	for _, problem := range problems {
		resp.Diagnostics.AddAttributeError(path.Root("source"), "Invalid flow", problem.String())
	}
	if len(problems) > 0 {
		return
	}
	// The API saves a flow under the namespace and id of its URL, which must be the source's.
	var header struct {
		ID        string `yaml:"id"`
		Namespace string `yaml:"namespace"`
	}
	if err := yaml.Unmarshal([]byte(source), &header); err == nil {
		if !plan.Namespace.IsUnknown() && header.Namespace != plan.Namespace.ValueString() {
			resp.Diagnostics.AddAttributeError(path.Root("namespace"), "Namespace does not match the source",
				fmt.Sprintf("namespace is %q but the source says namespace: %q", plan.Namespace.ValueString(), header.Namespace))
		}
		if !plan.FlowID.IsUnknown() && header.ID != plan.FlowID.ValueString() {
			resp.Diagnostics.AddAttributeError(path.Root("flow_id"), "Flow id does not match the source",
				fmt.Sprintf("flow_id is %q but the source says id: %q", plan.FlowID.ValueString(), header.ID))
		}
	}
}

func (r *flowResource) save(ctx context.Context, plan *flowModel, diags *diag.Diagnostics) {
	var view flowView
	namespace, id := plan.Namespace.ValueString(), plan.FlowID.ValueString()
	if _, err := r.client.YAML(ctx, http.MethodPut, r.client.TenantPath("flows", namespace, id), plan.Source.ValueString(), &view); err != nil {
		apiError(diags, fmt.Sprintf("saving flow %s/%s", namespace, id), err)
		return
	}
	plan.fill(view)
}

func (m *flowModel) fill(view flowView) {
	m.ID = types.StringValue(view.Namespace + "/" + view.ID)
	m.Namespace = types.StringValue(view.Namespace)
	m.FlowID = types.StringValue(view.ID)
	m.Source = types.StringValue(view.Source)
	m.Revision = types.Int64Value(view.Revision)
}

func (r *flowResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan flowModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.save(ctx, &plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *flowResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state flowModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var view flowView
	namespace, id := state.Namespace.ValueString(), state.FlowID.ValueString()
	if err := r.client.Get(ctx, r.client.TenantPath("flows", namespace, id), nil, &view); err != nil {
		if IsNotFound(err) {
			resp.State.RemoveResource(ctx)
			return
		}
		apiError(&resp.Diagnostics, fmt.Sprintf("reading flow %s/%s", namespace, id), err)
		return
	}
	state.fill(view)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *flowResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan flowModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.save(ctx, &plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *flowResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state flowModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	namespace, id := state.Namespace.ValueString(), state.FlowID.ValueString()
	if _, err := r.client.JSON(ctx, http.MethodDelete, r.client.TenantPath("flows", namespace, id), nil, nil); err != nil && !IsNotFound(err) {
		apiError(&resp.Diagnostics, fmt.Sprintf("deleting flow %s/%s", namespace, id), err)
	}
}

// ImportState takes `<namespace>/<flow_id>` (a namespace holds dots, never a slash).
func (r *flowResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	namespace, id, ok := strings.Cut(req.ID, "/")
	if !ok || namespace == "" || id == "" {
		resp.Diagnostics.AddError("Invalid import id", fmt.Sprintf("expected <namespace>/<flow_id>, got %q", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("namespace"), namespace)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("flow_id"), id)...)
}
