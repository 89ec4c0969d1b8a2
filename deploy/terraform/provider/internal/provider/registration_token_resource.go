package provider

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

type registrationTokenView struct {
	ID        string  `json:"id"`
	Name      string  `json:"name"`
	CreatedAt string  `json:"createdAt"`
	RevokedAt *string `json:"revokedAt"`
}

type mintedTokenView struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Token string `json:"token"`
}

type registrationTokenModel struct {
	ID            types.String `tfsdk:"id"`
	WorkerGroupID types.String `tfsdk:"worker_group_id"`
	Name          types.String `tfsdk:"name"`
	Token         types.String `tfsdk:"token"`
	CreatedAt     types.String `tfsdk:"created_at"`
}

type registrationTokenResource struct{ configuredResource }

var (
	_ resource.ResourceWithConfigure   = &registrationTokenResource{}
	_ resource.ResourceWithImportState = &registrationTokenResource{}
)

func NewRegistrationTokenResource() resource.Resource { return &registrationTokenResource{} }

func (r *registrationTokenResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_registration_token"
}

func (r *registrationTokenResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{
		Description: "A registration token of a worker group. The API shows its value once, when it is minted: " +
			"it is kept in the state (sensitive). Destroying the resource revokes the token; a token revoked " +
			"elsewhere disappears from the state, and the next apply mints a new one, which needs a new name " +
			"(a group's token names stay taken, revoked ones included: rotate a token by renaming it).",
		Attributes: map[string]schema.Attribute{
			"id":              schema.StringAttribute{Computed: true, PlanModifiers: keep},
			"worker_group_id": schema.StringAttribute{Required: true, PlanModifiers: replace},
			"name":            schema.StringAttribute{Required: true, PlanModifiers: replace},
			"token": schema.StringAttribute{
				Computed:      true,
				Sensitive:     true,
				Description:   "The token's value (null after an import: the API never shows it again).",
				PlanModifiers: keep,
			},
			"created_at": schema.StringAttribute{Computed: true, PlanModifiers: keep},
		},
	}
}

func (r *registrationTokenResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan registrationTokenModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	group := plan.WorkerGroupID.ValueString()
	var minted mintedTokenView
	if status, err := r.client.JSON(ctx, http.MethodPost, r.client.InstancePath("worker-groups", group, "tokens"), map[string]any{"name": plan.Name.ValueString()}, &minted); err != nil {
		if status == http.StatusConflict {
			// Lanner keeps revoked tokens (their names stay taken) so that audits can name them.
			resp.Diagnostics.AddAttributeError(path.Root("name"), "Registration token name taken",
				fmt.Sprintf("worker group %s already has a token named %q (perhaps revoked: names stay taken); give the new token another name. %s",
					group, plan.Name.ValueString(), err.Error()))
			return
		}
		apiError(&resp.Diagnostics, "minting a registration token for worker group "+group, err)
		return
	}
	plan.ID = types.StringValue(minted.ID)
	plan.Token = types.StringValue(minted.Token)
	plan.CreatedAt = types.StringNull()
	if stored, err := r.find(ctx, group, minted.ID); err == nil && stored != nil {
		plan.CreatedAt = types.StringValue(stored.CreatedAt)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// find is the stored token, or nil when the group has no such token.
func (r *registrationTokenResource) find(ctx context.Context, group, id string) (*registrationTokenView, error) {
	var tokens []registrationTokenView
	if err := r.client.Get(ctx, r.client.InstancePath("worker-groups", group, "tokens"), nil, &tokens); err != nil {
		return nil, err
	}
	for i := range tokens {
		if tokens[i].ID == id {
			return &tokens[i], nil
		}
	}
	return nil, nil
}

func (r *registrationTokenResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state registrationTokenModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	stored, err := r.find(ctx, state.WorkerGroupID.ValueString(), state.ID.ValueString())
	if err != nil {
		if IsNotFound(err) {
			resp.State.RemoveResource(ctx)
			return
		}
		apiError(&resp.Diagnostics, "reading the registration tokens of worker group "+state.WorkerGroupID.ValueString(), err)
		return
	}
	// A revoked token no longer registers workers: the plan mints a new one.
	if stored == nil || stored.RevokedAt != nil {
		resp.State.RemoveResource(ctx)
		return
	}
	state.Name = types.StringValue(stored.Name)
	state.CreatedAt = types.StringValue(stored.CreatedAt)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update is never planned (every argument forces a new token); it keeps the state as planned.
func (r *registrationTokenResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan registrationTokenModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *registrationTokenResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state registrationTokenModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	group := state.WorkerGroupID.ValueString()
	if _, err := r.client.JSON(ctx, http.MethodDelete, r.client.InstancePath("worker-groups", group, "tokens", state.ID.ValueString()), nil, nil); err != nil && !IsNotFound(err) {
		apiError(&resp.Diagnostics, "revoking registration token "+state.ID.ValueString(), err)
	}
}

// ImportState takes `<worker_group_id>/<token id>`; the value stays null (the API never shows it again).
func (r *registrationTokenResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	group, id, ok := strings.Cut(req.ID, "/")
	if !ok || group == "" || id == "" {
		resp.Diagnostics.AddError("Invalid import id", fmt.Sprintf("expected <worker_group_id>/<token id>, got %q", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("worker_group_id"), group)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("token"), types.StringNull())...)
}
