package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// clientOf takes the configured client handed to a resource or data source.
func clientOf(data any, diags *diag.Diagnostics) *Client {
	if data == nil {
		// Not configured yet (validation before the provider block is known).
		return nil
	}
	client, ok := data.(*Client)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("expected *Client, got %T", data))
		return nil
	}
	return client
}

// configuredResource holds the client of a resource; every resource embeds it.
type configuredResource struct {
	client *Client
}

func (r *configuredResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.client = clientOf(req.ProviderData, &resp.Diagnostics)
}

func apiError(diags *diag.Diagnostics, what string, err error) {
	diags.AddError("Lanner: "+what, err.Error())
}

func stringSet(values []string) types.Set {
	elements := make([]attr.Value, len(values))
	for i, value := range values {
		elements[i] = types.StringValue(value)
	}
	return types.SetValueMust(types.StringType, elements)
}

func stringList(values []string) types.List {
	elements := make([]attr.Value, len(values))
	for i, value := range values {
		elements[i] = types.StringValue(value)
	}
	return types.ListValueMust(types.StringType, elements)
}

func setStrings(ctx context.Context, set types.Set, diags *diag.Diagnostics) []string {
	values := []string{}
	if set.IsNull() || set.IsUnknown() {
		return values
	}
	diags.Append(set.ElementsAs(ctx, &values, false)...)
	return values
}

func optionalString(value *string) types.String {
	if value == nil {
		return types.StringNull()
	}
	return types.StringValue(*value)
}

func stringPointer(value types.String) *string {
	if value.IsNull() || value.IsUnknown() {
		return nil
	}
	text := value.ValueString()
	return &text
}
