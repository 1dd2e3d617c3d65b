/* cJSON, unchanged (third_party/cjson), driven by a fixed workload: parse a
 * document, read and change it, print it back, duplicate and compare it,
 * minify a commented text and refuse a malformed one.  Every step checks its
 * result; app_main returns 0 only if all are as expected.
 *
 * The same file builds for the host (-DHOST_MAIN gives it a main()) so that
 * uftrace can record the same calls: tests/checks/checks_thirdparty.py compares the
 * two function_graph traces. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "third_party/cjson/cJSON.h"

static const char doc[] =
	"{\"name\":\"baretrace\",\"version\":[1,7,15],\"ratio\":0.25,"
	"\"big\":-12345.5e2,\"ok\":true,\"none\":null,"
	"\"tags\":[\"trace\",\"json\\n\\u00e9\"],"
	"\"nested\":{\"depth\":2,\"list\":[{\"k\":\"v\"},[]]}}";

static const char expect_out[] =
	"{\"name\":\"baretrace\",\"version\":[1,7,15,16],\"ratio\":0.25,"
	"\"big\":-1234550,\"ok\":true,\"none\":null,"
	"\"tags\":[\"trace\",\"json\\n\xc3\xa9\"],"
	"\"nested\":{\"depth\":2,\"list\":[{\"k\":\"v\"},[]]},"
	"\"added\":{\"pi\":3.14159,\"count\":42,\"label\":\"x<y>\",\"flag\":false}}";

static int failures;

static void check(int ok, const char *what)
{
	if (!ok) {
		printf("cjson: FAILED %s\n", what);
		failures++;
	}
}

static int sum_array(const cJSON *array)
{
	int sum = 0;
	const cJSON *item;
	cJSON_ArrayForEach(item, array)
		sum += item->valueint;
	return sum;
}

static void read_and_change(cJSON *root)
{
	cJSON *version = cJSON_GetObjectItemCaseSensitive(root, "version");
	check(cJSON_IsArray(version) && cJSON_GetArraySize(version) == 3, "version array");
	check(sum_array(version) == 23, "version sum");
	cJSON_AddItemToArray(version, cJSON_CreateNumber(16));

	cJSON *name = cJSON_GetObjectItem(root, "NAME");
	check(cJSON_IsString(name) && strcmp(cJSON_GetStringValue(name), "baretrace") == 0,
	      "name");
	check(cJSON_GetNumberValue(cJSON_GetObjectItem(root, "ratio")) == 0.25, "ratio");
	check(cJSON_IsTrue(cJSON_GetObjectItem(root, "ok")), "ok");
	check(cJSON_IsNull(cJSON_GetObjectItem(root, "none")), "none");
	check(!cJSON_HasObjectItem(root, "missing"), "missing");

	cJSON *nested = cJSON_GetObjectItem(root, "nested");
	cJSON *list = cJSON_GetObjectItem(nested, "list");
	cJSON *first = cJSON_GetArrayItem(list, 0);
	check(strcmp(cJSON_GetObjectItem(first, "k")->valuestring, "v") == 0, "nested k");

	cJSON *added = cJSON_AddObjectToObject(root, "added");
	cJSON_AddNumberToObject(added, "pi", 3.14159);
	cJSON_AddNumberToObject(added, "count", 42);
	cJSON_AddStringToObject(added, "label", "x<y>");
	cJSON_AddFalseToObject(added, "flag");
}

static void print_and_compare(cJSON *root)
{
	char *out = cJSON_PrintUnformatted(root);
	check(out && strcmp(out, expect_out) == 0, "printed text");
	if (out)
		printf("cjson: %s\n", out);

	cJSON *again = cJSON_Parse(out);
	check(cJSON_Compare(root, again, 1), "reparsed equals");
	cJSON *copy = cJSON_Duplicate(root, 1);
	cJSON_ReplaceItemInObject(copy, "ok", cJSON_CreateBool(0));
	check(!cJSON_Compare(root, copy, 1), "changed copy differs");
	cJSON_DeleteItemFromObject(copy, "tags");
	check(cJSON_GetArraySize(copy) == 8, "copy size");

	char *pretty = cJSON_Print(again);
	check(pretty && strlen(pretty) == 296, "formatted length");
	cJSON_free(pretty);
	cJSON_Delete(copy);
	cJSON_Delete(again);
	cJSON_free(out);
}

static void minify_and_refuse(void)
{
	char text[] = "{ /* note */ \"a\" : [ 1 , 2 ] , // end\n \"b\" : \"s p\" }";
	cJSON_Minify(text);
	check(strcmp(text, "{\"a\":[1,2],\"b\":\"s p\"}") == 0, "minified");

	static const char bad[] = "{\"a\":[1,2,}";
	check(cJSON_Parse(bad) == NULL, "malformed refused");
	check(cJSON_GetErrorPtr() == bad + 10, "error position");
}

int app_main(void)
{
	cJSON *root = cJSON_Parse(doc);
	check(root != NULL, "parse");
	if (!root)
		return 1;
	read_and_change(root);
	print_and_compare(root);
	cJSON_Delete(root);
	minify_and_refuse();
	printf("cjson: %s\n", failures ? "FAILED" : "all checks passed");
	return failures ? 1 : 0;
}

#ifdef HOST_MAIN
int main(void)
{
	return app_main();
}
#endif
